"""Patterns that plugins declare and outsiders' text is matched against, run by RE2.

Python's `re` backtracks: a pattern such as `.*\\S.*` took 13 s on 40,000 spaces,
and the cost grows with the square (or worse) of the text. RE2 guarantees time linear in
the text whatever the pattern. The host's own patterns are written not to backtrack (and
markup is scanned by host.text); this module is for the patterns the host does not write:
JSON Schema `pattern`/`patternProperties` and oEmbed provider URL patterns.

RE2 refuses back-references and look-around; such a pattern raises `re2.error` where it is
first used, which the callers turn into a logged configuration error.
"""

from __future__ import annotations

import functools

import re2

error = re2.error


@functools.lru_cache(maxsize=1024)  # keyed by patterns from code, never by request values
def pattern(source: str) -> "re2._Regexp":
    """`source` compiled by RE2 (cached; JSON Schema semantics: `\\w` and `\\d` are ASCII)."""
    return re2.compile(source)
