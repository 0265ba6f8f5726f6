"""Every command's --help ends with an example, and every example parses."""

from __future__ import annotations

import shlex

import click
import pytest
from click.testing import CliRunner

from host.cli import main

pytestmark = pytest.mark.static  # the code and docs alone: the same on every database


def _commands(group: click.Group, context: click.Context, path: tuple[str, ...] = ()):
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        yield path + (name,), command
        if isinstance(command, click.Group):
            yield from _commands(command, context, path + (name,))


def _examples(help_text: str) -> list[str]:
    lines = help_text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.strip() in ("Example:", "Examples:"))
    examples = []
    for line in lines[start + 1:]:
        if not line.strip().startswith("sitehost "):
            break
        examples.append(line.strip())
    return examples


def test_every_command_shows_an_example_that_parses():
    runner = CliRunner()
    context = click.Context(main, info_name="sitehost")
    commands = [((), main)] + list(_commands(main, context))
    assert {("serve",), ("plugins", "list"), ("user", "create"), ("app-password", "revoke"), ("plugin", "new")} \
        <= {path for path, _ in commands}
    for path, _command in commands:
        shown = runner.invoke(main, [*path, "--help"])
        assert shown.exit_code == 0, (path, shown.output)
        examples = _examples(shown.output)
        assert examples, f"sitehost {' '.join(path)} --help has no example"
        for example in examples:
            words = shlex.split(example.split("|")[0].split(">")[0])[1:]
            parsed = runner.invoke(main, [*words, "--help"])
            assert parsed.exit_code == 0, f"example {example!r} does not parse: {parsed.output}"


def test_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("sitehost 0.")
