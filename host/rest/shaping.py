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


def embed_links(server, request, item: dict, wanted: set[str] | None, fetched: dict) -> None:
    """Fill item["_embedded"] from its embeddable links (internal GETs as the same user)."""
    links = item.get("_links")
    if not isinstance(links, dict):
        return
    embedded: dict = {}
    for raw_rel, entries in links.items():
        if raw_rel == "curies" or not isinstance(entries, list):
            continue
        rel = "wp:" + raw_rel[len(CURIE_PREFIX):] if raw_rel.startswith(CURIE_PREFIX) else raw_rel
        if wanted is not None and rel not in wanted:
            continue
        results = []
        found_any = False
        for link in entries:
            href = link.get("href", "") if isinstance(link, dict) else ""
            if not (isinstance(link, dict) and link.get("embeddable") and href.startswith(request.base_url + "/")):
                results.append([])
                continue
            if href not in fetched:
                fetched[href] = _fetch(server, request, href)
            results.append(fetched[href])
            found_any = True
        if found_any:
            embedded[rel] = results
    if embedded:
        item["_embedded"] = embedded


def _fetch(server, request, href: str) -> Any:
    parts = urlsplit(href)
    path = parts.path[len(urlsplit(request.base_url).path):] or "/"
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    names = {key for key, _value in pairs}
    if "context" not in names:
        pairs.append(("context", "embed"))
    status, _headers, data = server.dispatch_internal(request, "GET", path, pairs, for_embed=True)
    return data
