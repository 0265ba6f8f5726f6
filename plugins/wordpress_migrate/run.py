"""One import of a WXR file, whoever starts it (the command, the admin page, the ability)."""

from __future__ import annotations

import logging
import os
import pickle
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from host.outbound import Limits, fetch

from .importer import BATCH_ITEMS, CORE_TAXONOMIES, CoreImporter, ImportRun, Summary
from .reader import Channel, WxrError, WxrReader
from .settings import settings_of

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]  # (stage "check" or "import", bytes read, file size)
MEDIA_LIMITS = Limits(timeout_seconds=30.0, max_response_bytes=64 * 1024 * 1024)


def check_file(path: Path, progress: Progress | None = None, keep: BinaryIO | None = None) -> tuple[int, Channel]:
    """Read the whole file without writing anything: its number of items and its channel, or WxrError.

    `keep`: a binary file the records are pickled into as they are read, for the import to read back
    (`kept_records`) instead of parsing the XML a second time. It is an unnamed temporary file of
    this process, so what is unpickled is what this check wrote.
    """
    reader = WxrReader(path)
    items = 0
    for kind, record in reader:
        items += kind == "item"
        if keep is not None:
            pickle.dump((kind, record), keep, protocol=pickle.HIGHEST_PROTOCOL)
        if progress is not None:
            progress("check", reader.bytes_read, reader.size)
    if not reader.channel.wxr_version and not items:
        raise WxrError("not a WordPress export: no <wp:wxr_version> and no items")
    return items, reader.channel


def kept_records(kept: BinaryIO) -> Iterator[tuple[str, object]]:
    """The records `check_file` pickled into `kept`, one at a time, from the start."""
    kept.seek(0)
    while True:
        try:
            yield pickle.load(kept)
        except EOFError:
            return


def taxonomy_map(app) -> dict[str, str]:
    """WordPress taxonomy -> this site's: core's, each plugin's answer, and the site's taxonomies of the same name."""
    merged = {name: name for name in app.registry.taxonomies}
    merged.update(CORE_TAXONOMIES)
    for answer in app.hook.wordpress_taxonomies(app=app):
        merged.update(answer or {})
    return {wordpress: ours for wordpress, ours in merged.items() if ours in app.registry.taxonomies}


def fetcher(app) -> Callable[[str], bytes]:
    """Download a media file through the host's outbound guard (no private targets, size and time limits)."""
    allow_private = settings_of(app).allow_private_media
    limits = Limits(timeout_seconds=MEDIA_LIMITS.timeout_seconds, max_response_bytes=MEDIA_LIMITS.max_response_bytes,
                    allow_private_targets=allow_private)

    def download(url: str) -> bytes:
        return fetch(url, limits, code_prefix="wordpress_migrate").body

    return download


def import_file(app, path: Path, *, uploads_dir: Path | None = None, fetch_media: bool = False,
                importing_user_id: int | None = None, progress: Progress | None = None,
                batch_items: int = BATCH_ITEMS) -> Summary:
    """Check, then import `path`; the summary of what was done. WxrError when the file is refused."""
    path = Path(path)
    with tempfile.TemporaryFile(prefix="sitehost-wxr-") as kept:
        _items, channel = check_file(path, progress, keep=kept)
        return _import_records(app, kept_records(kept), channel, kept, path.stat().st_size, uploads_dir=uploads_dir,
                               fetch_media=fetch_media, importing_user_id=importing_user_id, progress=progress,
                               batch_items=batch_items)


def _import_records(app, records: Iterator[tuple[str, object]], channel: Channel, kept: BinaryIO, size: int, *,
                    uploads_dir: Path | None, fetch_media: bool, importing_user_id: int | None,
                    progress: Progress | None, batch_items: int) -> Summary:
    """The import of the checked records, one transaction per batch of `batch_items` items."""
    kept_size = max(kept.seek(0, os.SEEK_END), 1)
    zone = app.settings.site.get("timezone_string") or "UTC"
    run: ImportRun | None = None
    core: CoreImporter | None = None
    pending: list[tuple[str, object]] = []
    finished = False
    while not finished:
        with app.db.session(write=True) as session:
            if run is None:
                first = next(records, None)
                pending = [first] if first is not None else []
                run = ImportRun(app, zone, channel.base_site_url or channel.link,
                                app.site_address(session), uploads_dir=uploads_dir,
                                fetch_media=fetcher(app) if fetch_media else None,
                                writer_id=importing_user_id or 0)
                run.taxonomy_map = taxonomy_map(app)
                core = CoreImporter(run, importing_user_id or 0)
            run.use_session(session)
            items = 0
            while items < batch_items:
                record = pending.pop() if pending else next(records, None)
                if record is None:
                    finished = True
                    break
                kind, value = record
                if kind == "author":
                    core.author(value)
                elif kind == "term":
                    core.term(value)
                else:
                    core.item(value)
                    items += 1
            core.flush_queue()
            if finished:
                run.kind = "links"
                core.finish()
                run.run_after_all()
                core.flush_queue()  # posts an after-all callback's lookups did not ask for
            run.write_buffered()
            run.request.commit()
        if progress is not None:
            progress("import", size * kept.tell() // kept_size, size)
    if run is None:
        raise WxrError("not a WordPress export: nothing in it")
    summary = Summary(by_kind=run.outcomes_by_kind, not_imported=run.skipped, users_without_password=run.new_users)
    return summary
