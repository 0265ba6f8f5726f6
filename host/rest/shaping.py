"""Response shaping handled by the server for every route: `_fields` and `_embed`."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

_SPLIT = re.compile(r"[\s,]+")
CURIE_PREFIX = "https://api.w.org/"


def parse_names(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        names = []
        for item in value:
            names.extend(parse_names(item))
        return names
    return [name for name in _SPLIT.split(str(value).strip()) if name]


def fields_tree(names: list[str]) -> dict:
    """Dot paths as a tree: ["title.rendered", "id"] -> {"title": {"rendered": {}}, "id": {}}.

    A name listed whole keeps its subtree even when a child of it is listed too.
    """
    tree: dict = {}
    whole: set[str] = set()
    for name in names:
        parts = name.split(".")
        node = tree
        for depth, part in enumerate(parts):
            path = ".".join(parts[: depth + 1])
            if path in whole:
                break
            node = node.setdefault(part, {})
        else:
            node.clear()
            whole.add(name)
    return tree


def filter_fields(data: Any, tree: dict) -> Any:
    if isinstance(data, list):
        return [filter_fields(item, tree) for item in data]
    if not isinstance(data, dict):
        return data
    result = {}
    for key, subtree in tree.items():
        if key not in data:
            continue
        result[key] = filter_fields(data[key], subtree) if subtree else data[key]
    return result


def compact_links(links: dict) -> dict:
    """Rels under the api.w.org prefix become `wp:<name>`, with a `curies` entry last."""
    compacted: dict = {}
    used_curie = False
    for rel, entries in links.items():
        if rel.startswith(CURIE_PREFIX):
            rel = "wp:" + rel[len(CURIE_PREFIX):]
            used_curie = True
        elif rel.startswith("wp:"):
            used_curie = True
        compacted[rel] = entries
    if used_curie:
        compacted.pop("curies", None)
        compacted["curies"] = [{"name": "wp", "href": CURIE_PREFIX + "{rel}", "templated": True}]
    return compacted


def embeddable_links(request, item: dict, wanted: set[str] | None) -> list[tuple[str, str | None]]:
    """(rel, href or None) for every link of every wanted rel of `item`; None where the link is
    not embeddable. `embed_links` follows the hrefs."""
    links = item.get("_links")
    if not isinstance(links, dict):
        return []
    prefix = request.base_url + "/"
    found: list[tuple[str, str | None]] = []
    for raw_rel, entries in links.items():
        if raw_rel == "curies" or not isinstance(entries, list):
            continue
        rel = "wp:" + raw_rel[len(CURIE_PREFIX):] if raw_rel.startswith(CURIE_PREFIX) else raw_rel
        if wanted is not None and rel not in wanted:
            continue
        for link in entries:
            href = link.get("href", "") if isinstance(link, dict) else ""
            embeddable = isinstance(link, dict) and link.get("embeddable") and isinstance(href, str) \
                and href.startswith(prefix)
            found.append((rel, href if embeddable else None))
    return found


def embed_links(server, request, item: dict, links: list[tuple[str, str | None]], fetched: dict) -> None:
    """Fill item["_embedded"] from its embeddable `links` (internal GETs as the same user).

    `fetched` holds answers already known by href (a batch resolved them for the whole page).
    """
    embedded: dict = {}
    found: set[str] = set()
    for rel, href in links:
        results = embedded.setdefault(rel, [])
        if href is None:
            results.append([])
            continue
        if href not in fetched:
            fetched[href] = _fetch(server, request, href)
        results.append(fetched[href])
        found.add(rel)
    embedded = {rel: results for rel, results in embedded.items() if rel in found}
    if embedded:
        item["_embedded"] = embedded


def embed_target(request, href: str) -> tuple[str, list[tuple[str, str]]]:
    """The REST path and query pairs of an embedded link, `context=embed` added unless it names one."""
    parts = urlsplit(href)
    path = parts.path[len(urlsplit(request.base_url).path):] or "/"
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(key == "context" for key, _value in pairs):
        pairs.append(("context", "embed"))
    return path, pairs


def _fetch(server, request, href: str) -> Any:
    path, pairs = embed_target(request, href)
    status, _headers, data = server.dispatch_internal(request, "GET", path, pairs, for_embed=True)
    return data
