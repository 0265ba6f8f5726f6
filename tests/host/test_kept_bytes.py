"""Bytes a process keeps (encode_item, kept embeds) take their own length in memory, not orjson's buffer."""

from __future__ import annotations

import tracemalloc

import orjson

from host import decode_item, encode_item
from host.rest.response import exact_bytes

ITEM = {"id": 7, "title": {"rendered": "Sports day"}, "content": {"rendered": "<p>" + "Races and games. " * 150 + "</p>"},
        "_links": {"self": [{"href": "http://school.test/wp-json/core/v2/posts/7"}]}}


def _traced_size(build) -> tuple[object, int]:
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = build()
        return value, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_exact_bytes_are_the_same_bytes_in_an_allocation_of_their_length():
    raw = orjson.dumps(ITEM)
    copy, size = _traced_size(lambda: exact_bytes(raw))
    assert copy == raw and type(copy) is bytes
    assert size < len(raw) + 128  # orjson 3.13's own result holds ~4x-10x that (its write buffer)


def test_encode_item_keeps_exact_bytes_and_decodes_to_the_finished_item():
    kept, size = _traced_size(lambda: encode_item(ITEM))
    text = orjson.dumps(kept)
    assert size < len(text) + 256
    assert decode_item(kept) == orjson.loads(text) and decode_item(kept)["id"] == 7
