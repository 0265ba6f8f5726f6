"""Helpers shared by sitehost's own tests (imported by tests; conftest files hold only fixtures)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable


def install_entry_point_plugin(folder: Path, distribution: str, version: str, name: str, module: str) -> Path:
    """Make `module` an installed distribution with a `sitehost` entry point, the way pip would.

    Writes a `.dist-info` folder beside the package's source so that importlib.metadata
    (and so sitehost's plugin discovery) finds it once `folder` is on sys.path.
    """
    dist_info = folder / f"{distribution.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n")
    (dist_info / "entry_points.txt").write_text(f"[sitehost]\n{name} = {module}\n")
    return folder


# The example plugins' sources (tests/example_plugin/<package>): installed by the fixtures that use them.
EXAMPLE_SOURCE = Path(__file__).parent / "example_plugin"


def install_example_plugin(tmp_path: Path, monkeypatch, distribution: str, version: str, name: str,
                           module: str) -> Path:
    """An example plugin of EXAMPLE_SOURCE importable and installed as `distribution` (entry point `name`)."""
    import importlib

    site = tmp_path / "site-packages"
    site.mkdir(exist_ok=True)
    install_entry_point_plugin(site, distribution, version, name, module)
    monkeypatch.syspath_prepend(str(EXAMPLE_SOURCE))
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return site


def wait_until(condition, timeout: float = 30, step: float = 0.1):
    """Poll `condition()` until it answers something true (returned); AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(step)
    raise AssertionError(f"not reached within {timeout} seconds: {condition.__doc__ or condition}")


class FakeRemote:
    """Routes of a pretend remote site on 127.0.0.1; `hits` counts requests per path."""

    def __init__(self):
        self.routes: dict[str, tuple[int, dict, bytes]] = {}
        self.hits: dict[str, int] = {}
        remote = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                path = self.path.split("?", 1)[0]
                remote.hits[path] = remote.hits.get(path, 0) + 1
                status, headers, body = remote.routes.get(path, (404, {}, b"not here"))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def serve(self, path: str, body, status: int = 200, content_type: str = "text/html", headers=None):
        raw = json.dumps(body).encode() if isinstance(body, (dict, list)) else (
            body.encode() if isinstance(body, str) else body)
        self.routes[path] = (status, {"Content-Type": content_type, **(headers or {})}, raw)
        return self.base + path

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# --- WordPress exports (WXR) for the plugins' import tests -----------------------------------------

HILLSIDE_WXR = Path(__file__).parent / "wordpress_migrate" / "data" / "hillside.wxr"
_WXR_HEAD = """<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
 xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/"
 xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
<title>Hillside</title><link>https://old.hillside.example</link><description></description>
<language>en-GB</language><wp:wxr_version>1.2</wp:wxr_version>
<wp:base_site_url>https://old.hillside.example</wp:base_site_url>
<wp:base_blog_url>https://old.hillside.example</wp:base_blog_url>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login><![CDATA[head]]></wp:author_login>
<wp:author_email><![CDATA[head@hillside.example]]></wp:author_email><wp:author_display_name><![CDATA[Head]]>
</wp:author_display_name><wp:author_first_name><![CDATA[]]></wp:author_first_name>
<wp:author_last_name><![CDATA[]]></wp:author_last_name></wp:author>
"""


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def wxr_item(post_id: int, post_type: str, title: str, meta: list[tuple[str, str]] = (), content: str = "",
             status: str = "publish", parent: int = 0, extra: str = "") -> str:
    """One <item> of a WXR file (author `head`), with its meta in the order given."""
    metas = "".join(f"<wp:postmeta><wp:meta_key>{_cdata(key)}</wp:meta_key><wp:meta_value>{_cdata(value)}"
                    f"</wp:meta_value></wp:postmeta>" for key, value in meta)
    return (f"<item><title>{_cdata(title)}</title><link>https://old.hillside.example/?p={post_id}</link>"
            f"<dc:creator>{_cdata('head')}</dc:creator><guid isPermaLink=\"false\">https://old.hillside.example/?p="
            f"{post_id}</guid><content:encoded>{_cdata(content)}</content:encoded><excerpt:encoded>{_cdata('')}"
            f"</excerpt:encoded><wp:post_id>{post_id}</wp:post_id><wp:post_date>{_cdata('2025-01-06 09:00:00')}"
            f"</wp:post_date><wp:post_date_gmt>{_cdata('2025-01-06 09:00:00')}</wp:post_date_gmt>"
            f"<wp:post_name>{_cdata(f'item-{post_id}')}</wp:post_name><wp:status>{_cdata(status)}</wp:status>"
            f"<wp:post_parent>{parent}</wp:post_parent><wp:menu_order>0</wp:menu_order>"
            f"<wp:post_type>{_cdata(post_type)}</wp:post_type><wp:post_password>{_cdata('')}</wp:post_password>"
            f"<wp:is_sticky>0</wp:is_sticky>{extra}{metas}</item>\n")


def write_wxr(path: Path, *items: str) -> Path:
    """A WXR 1.2 file of the old Hillside site (one author, `head`) holding `items`."""
    path.write_text(_WXR_HEAD + "".join(items) + "</channel>\n</rss>\n", encoding="utf-8")
    return path


def _site_command(app, tmp_path: Path, *args: str):
    """`sitehost ARGS` on `app`'s database and uploads (a config file of its own), through click."""
    from click.testing import CliRunner

    from host.cli import main

    config = tmp_path / f"sitehost-{id(app)}.toml"
    config.write_text(f"database_url = {json.dumps(app.settings.database_url)}\n"
                      f"uploads_dir = {json.dumps(str(app.settings.uploads_dir))}\n")
    return CliRunner().invoke(main, ["--config", str(config), *args], catch_exceptions=False)


def import_wordpress(app, tmp_path: Path, file: Path):
    """`sitehost import wordpress FILE --report REPORT` on `app`'s database: (the click result, the report's text)."""
    report = tmp_path / f"import-report-{id(app)}.txt"
    report.unlink(missing_ok=True)
    result = _site_command(app, tmp_path, "import", "wordpress", str(file), "--report", str(report))
    return result, report.read_text(encoding="utf-8") if report.exists() else ""


def export_wordpress(app, tmp_path: Path) -> Path:
    """`sitehost export wordpress --out FILE` of `app`'s site: the file."""
    out = tmp_path / f"export-{id(app)}.xml"
    result = _site_command(app, tmp_path, "export", "wordpress", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def round_trip(make_app, tmp_path: Path, read: Callable) -> tuple[Any, Any]:
    """(what `read(app, admin)` answers on a site that imported the Hillside export, and on a fresh site
    that imported that site's own export): a plugin's round trip is lossless when they are equal."""
    from host.testing import create_test_user

    answers = []
    source = HILLSIDE_WXR
    for _side in range(2):
        app = make_app()
        admin = create_test_user(app, "administrator")
        result, _report = import_wordpress(app, tmp_path, source)
        assert result.exit_code == 0, result.output
        answers.append(read(app, admin))
        source = export_wordpress(app, tmp_path)
    return answers[0], answers[1]


def without(data: Any, keys: set[str]) -> Any:
    """`data` with `keys` dropped from every object at any depth (ids and links that differ between sites)."""
    if isinstance(data, dict):
        return {key: without(value, keys) for key, value in data.items() if key not in keys}
    if isinstance(data, list):
        return [without(value, keys) for value in data]
    return data


def wxr_file_meta(path: Path, post_id: int) -> dict[str, str]:
    """The raw meta of item `post_id` of a WXR file (first value of each key), read with an XML parser of
    its own, so a test compares what the site serves with what the file says."""
    from xml.etree import ElementTree  # the suite's own data file: trusted

    wp = "{http://wordpress.org/export/1.2/}"
    for item in ElementTree.parse(path).getroot().iter("item"):
        if item.findtext(f"{wp}post_id") == str(post_id):
            found: dict[str, str] = {}
            for meta in item.findall(f"{wp}postmeta"):
                found.setdefault(meta.findtext(f"{wp}meta_key"), meta.findtext(f"{wp}meta_value") or "")
            return found
    raise LookupError(f"no item {post_id} in {path}")


def import_again_unchanged(app, tmp_path: Path, file: Path) -> None:
    """A second import of `file` succeeds and creates nothing."""
    result, _report = import_wordpress(app, tmp_path, file)
    assert result.exit_code == 0 and "0 created" in result.output, result.output


def assert_not_imported(report: str, label: str, reason: str) -> None:
    """The import's report names `label` with `reason` on the same line."""
    assert any(label in line and reason in line for line in report.splitlines()), (label, reason, report)
