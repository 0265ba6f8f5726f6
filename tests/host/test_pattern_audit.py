"""Every regular expression in host/ and plugins/ runs in linear time on long adversarial text.

Two registry- and import-driven audits, so that a pattern added later is checked without a
hand-kept list:
- every compiled pattern kept at module level in host/ and plugins/ (the ones code runs on
  request data) searched in strings of 20,000 repeated characters of the kinds patterns
  quantify (spaces, digits, letters, markup, quotes ...);
- every registered route's path pattern matched against paths whose variables are such
  strings (Python's `re` matches paths, so a route pattern must not backtrack either).
A backtracking pattern takes seconds to minutes on these (20,000 squared steps and more);
a linear one takes microseconds. The bound is on this process's CPU time, not the wall clock,
so that neighbours on a busy machine (other test workers, a CI host under load) do not count.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time

import pytest

import host
import plugins

LENGTH = 20_000
BOUND_SECONDS = 1.0
UNITS = [" ", "\t", "\n", "\n ", "a", "1", "a1", "-", "_", ".", ",", "<", ">", "<a ", "<!--", "&", "&a", "#", "\"",
         "'", "=", "src=", "/", "\\", "[", "]", "[a]", "(", "*", "+", "@", ":", ";", "%", "a-", "1.", "e1", "\u00e9",
         "\x00"]


def adversarial_strings():
    for unit in UNITS:
        body = unit * (LENGTH // len(unit))
        yield body
        yield body + "!\x00"
        yield "x" + body + "\n"


def module_patterns():
    found = []
    for package in (host, plugins):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if isinstance(value, re.Pattern):
                    found.append((f"{info.name}.{name}", value))
    return found


PATTERNS = module_patterns()


def test_the_audit_finds_the_patterns():
    names = {name for name, _ in PATTERNS}
    assert "host.rest.validation._NUMERIC" in names and "plugins.core.media._DISPOSITION" in names
    assert len(PATTERNS) >= 20


@pytest.mark.parametrize("name, pattern", PATTERNS, ids=[name for name, _ in PATTERNS])
def test_module_pattern_is_linear_on_adversarial_text(name, pattern):
    for text in adversarial_strings():
        started = time.process_time()
        pattern.search(text)
        pattern.sub("", text) if pattern.groups == 0 else pattern.findall(text)
        elapsed = time.process_time() - started
        assert elapsed < BOUND_SECONDS, f"{name} took {elapsed:.2f} s on {text[:12]!r}... ({len(text)} chars)"


def test_every_route_pattern_is_linear_on_adversarial_paths(make_app, example_plugin):
    app = make_app()
    variable = re.compile(r"\(\?P<\w+>")
    checked = 0
    for compiled in app.registry.routes.values():
        if "(?P<" not in compiled.path:
            continue
        for text in adversarial_strings():
            # every variable of the route replaced by the adversarial text (the groups' own syntax is
            # dropped with a plain scan, so that nested parentheses do not matter)
            path, rest = "", compiled.path
            while True:
                found = variable.search(rest)
                if found is None:
                    path += rest
                    break
                path += rest[:found.start()] + text
                depth, index = 1, found.end()
                while index < len(rest) and depth:
                    depth += {"(": 1, ")": -1}.get(rest[index], 0)
                    index += 1
                rest = rest[index:]
            started = time.process_time()
            compiled.regex.match(path)
            elapsed = time.process_time() - started
            assert elapsed < BOUND_SECONDS, f"{compiled.path} took {elapsed:.2f} s on {text[:12]!r}..."
            checked += 1
    assert checked > 100
