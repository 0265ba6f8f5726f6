"""The cache warmer: anonymous GETs run in-process through the site's own WSGI pipeline.

Going through the full pipeline (not calling handlers directly) means warmed entries are
exactly what a visitor would have caused: same key, same headers, same permission checks.
Each crawler is a profile of public routes; a pass stops after `crawler_max_requests`.
"""

from __future__ import annotations

import io
import json
import logging
from dataclasses import dataclass
from urllib.parse import urlsplit

log = logging.getLogger("sitehost.cache.crawler")

USER_AGENT = "sitehost-cache-crawler"


@dataclass(frozen=True)
class Crawler:
    id: int
    name: str
    description: str


CRAWLERS = {
    0: Crawler(0, "indexes", "The REST root and every namespace index."),
    1: Crawler(1, "content", "The first page of each cached collection, then the items listed on it."),
}


class Warmer:
    """One warming pass for a set of crawlers, as the site at `environ`'s host sees it."""

    def __init__(self, app, cache, environ: dict, max_requests: int):
        self.app = app
        self.cache = cache
        self.base_environ = {name: environ[name] for name in
                             ("HTTP_HOST", "wsgi.url_scheme", "SERVER_NAME", "SERVER_PORT", "HTTP_X_FORWARDED_PROTO")
                             if name in environ}
        self.max_requests = max_requests
        self.requests = 0
        self.cached = 0
        self.seen: set[str] = set()

    def run(self, crawler_ids: list[int]) -> dict:
        for crawler_id in sorted(crawler_ids):
            if crawler_id == 0:
                self._indexes()
            elif crawler_id == 1:
                self._content()
        return {"requests": self.requests, "cached": self.cached}

    def _indexes(self) -> None:
        self.get("/")
        for namespace in self.app.registry.namespaces:
            self.get("/" + namespace)

    def _content(self) -> None:
        for path, route in self.app.registry.ordered_routes():
            if route.has_variables or route.endpoint_for("GET") is None:
                continue
            if not any(path == prefix or path.startswith(prefix.rstrip("/") + "/") for prefix in self.cache.config.paths):
                continue
            status, body = self.get(path)
            if status != 200 or not isinstance(body, list):
                continue
            for item in body:
                href = _self_href(item)
                if href:
                    self.get_url(href)

    def get_url(self, href: str) -> None:
        """GET a link found in a response, when it points into this site's REST root."""
        parts = urlsplit(href)
        prefix = self.app.settings.rest_prefix
        if parts.netloc and parts.netloc != self.base_environ.get("HTTP_HOST", parts.netloc):
            return
        if not parts.path.startswith(prefix + "/"):
            return
        self.get(parts.path[len(prefix):], parts.query)

    def get(self, path: str, query: str = "") -> tuple[int, object]:
        target = path + ("?" + query if query else "")
        if self.requests >= self.max_requests or target in self.seen:
            return 0, None
        self.seen.add(target)
        self.requests += 1
        environ = dict(self.base_environ)
        environ.update({
            "REQUEST_METHOD": "GET", "PATH_INFO": self.app.settings.rest_prefix + path, "QUERY_STRING": query,
            "SCRIPT_NAME": "", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
            "HTTP_USER_AGENT": USER_AGENT, "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.StringIO(),
        })
        environ.setdefault("wsgi.url_scheme", "http")
        environ.setdefault("SERVER_NAME", "localhost")
        environ.setdefault("SERVER_PORT", "80")
        answer: dict = {}

        def start_response(status, headers, exc_info=None):
            answer["status"] = int(status.split(" ", 1)[0])
            answer["headers"] = dict(headers)

        body = b"".join(self.app(environ, start_response))
        if answer.get("headers", {}).get("X-Cache") == "miss" and answer.get("status") == 200:
            self.cached += 1
        try:
            return answer.get("status", 0), json.loads(body) if body else None
        except ValueError:
            return answer.get("status", 0), None


def _self_href(item) -> str | None:
    if not isinstance(item, dict):
        return None
    links = item.get("_links")
    if not isinstance(links, dict):
        return None
    selves = links.get("self")
    if isinstance(selves, list) and selves and isinstance(selves[0], dict):
        href = selves[0].get("href")
        return href if isinstance(href, str) else None
    return None
