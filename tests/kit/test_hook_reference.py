"""Guards on the hook set: every hook is documented, the reference is current, and tested."""

import re
from pathlib import Path

import pytest

from host import hookdocs, hookspecs

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database

TESTS = Path(__file__).resolve().parent.parent


def hook_names():
    return [hook.name for hook in hookdocs.collect_hooks()]


def test_every_hookspec_is_collected():
    specs = {name for name in dir(hookspecs) if hasattr(getattr(hookspecs, name), "sitehost_spec")}
    assert set(hook_names()) == specs
    assert len(specs) >= 29


def test_every_hook_has_a_docstring_that_says_when_arguments_and_returns():
    missing = []
    for hook in hookdocs.collect_hooks():
        text = hook.docstring
        if not text or any(label not in text for label in ("When:", "Returns:")):
            missing.append(hook.name)
        elif hook.arguments and "Arguments:" not in text:
            missing.append(hook.name)
        elif hook.firstresult and "firstresult" not in text:
            missing.append(hook.name)
    assert missing == [], f"hooks without a complete docstring: {missing}"


def test_every_hook_argument_is_named_in_its_docstring():
    for hook in hookdocs.collect_hooks():
        for argument in hook.arguments:
            assert f"`{argument}`" in hook.docstring, f"{hook.name}: argument {argument!r} is not described"


def test_docs_hooks_md_is_generated_from_the_hookspecs():
    current = hookdocs.DOCS_FILE.read_text(encoding="utf-8")
    assert current == hookdocs.render(), "docs/hooks.md is out of date: run `python -m host.hookdocs`"
    for hook in hookdocs.collect_hooks():
        assert f"### {hook.name}\n\n`{hook.signature}`" in current


def test_hookdocs_check_command(capsys):
    assert hookdocs.main(["--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_every_hook_has_a_test_of_its_own():
    defined = set()
    for path in TESTS.rglob("test_*.py"):
        defined.update(re.findall(r"^def (test_hook_\w+)\(", path.read_text(encoding="utf-8"), re.MULTILINE))
    untested = [name for name in hook_names() if f"test_hook_{name}" not in defined]
    assert untested == [], f"hooks without a test_hook_<name> test: {untested}"
