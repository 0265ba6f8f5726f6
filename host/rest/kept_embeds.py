"""Embedded answers kept for callers without credentials (`_embed`).

A list page with `_embed` follows some thirty links (authors, terms, replies, media). For a
caller without credentials the answer to one link depends only on what is stored, so a GET
route may declare `Route(answer_version=...)`: a function of the request whose value changes
whenever anything its answers are built from may have changed (core's: its content version).
An answer is kept per (base URL, href) with the version read *before* it was built, and
served again only while the route's version is still that value: a write that lands while an
answer is being built makes the kept answer stale at once, never a stale answer current.

Answers are kept as encoded JSON: a page that needs no reshaping (`_fields`, `_pretty`)
splices the bytes in as they are; other pages decode them.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import orjson

from host.kept import Kept

from .response import exact_bytes
from .shaping import embed_target

log = logging.getLogger(__name__)

ENTRIES = 1024  # a 10-item page follows about 30 links: the answers of some 30 recent pages
# A larger answer (a post's hundred long replies) is built again each time rather than kept, so
# what a process keeps stays bounded (ENTRIES x MAX_ANSWER_BYTES: 16 MB) whoever asks for what.
MAX_ANSWER_BYTES = 16 * 1024


class KeptEmbeds:
    """One server's kept answers, with the route versions of the page being built."""

    def __init__(self, registry, encode: Callable[[Any], bytes], entries: int = ENTRIES):
        self.registry = registry
        self.encode = encode  # the server's own encoder, so kept bytes equal fresh ones
        self._kept: Kept[tuple[Callable, bytes]] = Kept(entries, name="host.kept_embeds")

    @staticmethod
    def applies(request) -> bool:
        """Only answers for callers without credentials are shared between requests."""
        return not request.user.is_authenticated and request.application_password is None

    def lookup(self, request, hrefs: list[str], versions: dict, encoded: bool) -> dict[str, Any]:
        """Answers kept for `hrefs` at their routes' current versions (`versions` memoises those
        per version function for this page). Encoded answers are `orjson.Fragment`s."""
        found: dict[str, Any] = {}
        base = request.base_url
        for href in hrefs:
            entry = self._kept.stored((base, href))  # the entry names its route's version function
            if entry is None:
                continue
            version, (version_of, body) = entry
            if self._version(request, version_of, versions) != version:
                continue
            found[href] = orjson.Fragment(body) if encoded else orjson.loads(body)
        return found

    def versions_for(self, request, hrefs: list[str], versions: dict) -> dict[str, tuple[Callable, Any]]:
        """(version function, version now) of every href whose GET route declares one, read before
        the answers are built."""
        registry = self.registry
        found: dict[str, tuple[Callable, Any]] = {}
        for href in dict.fromkeys(hrefs):
            path, _pairs = embed_target(request, href)
            matched = registry.match(path, "GET")
            version_of = matched[1].answer_version if matched is not None else None
            if version_of is None:
                continue
            version = self._version(request, version_of, versions)
            if version is not None:
                found[href] = (version_of, version)
        return found

    def keep(self, request, answers: dict[str, Any], versions_before: dict[str, tuple[Callable, Any]]) -> None:
        base = request.base_url
        for href, (version_of, version) in versions_before.items():
            if href not in answers:
                continue
            try:
                body = self.encode(answers[href])
            except (TypeError, ValueError):
                continue  # left to be built again next time
            if len(body) > MAX_ANSWER_BYTES:
                continue
            self._kept.put((base, href), version, (version_of, exact_bytes(body)))

    @staticmethod
    def _version(request, version_of: Callable, versions: dict) -> Any:
        if version_of not in versions:
            try:
                versions[version_of] = version_of(request)
            except Exception:
                log.exception("answer_version of an embedded route failed; not reusing its answers")
                versions[version_of] = None
        return versions[version_of]

