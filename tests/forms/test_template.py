"""The bracket-tag template language: tags, options, values, pipes, enclosed content, problems, linear time."""

from __future__ import annotations

import sys

import pytest

from plugins.forms import template


def fields(text: str) -> list[dict]:
    return [tag.as_field() for tag in template.parse(text).tags]


def messages(text: str) -> list[str]:
    return [problem.message for problem in template.parse(text).problems]


def test_every_tag_type_of_the_issue_parses_into_the_reference_field_shape():
    text = ('[text* your-name] [email* your-email] [tel phone] [url site] [number kids min:1 max:9] [date day] '
            '[textarea note] [select year "a" "b"] [checkbox clubs "Chess" "Choir"] [radio lunch "Yes" "No"] '
            '[acceptance terms] [file doc limit:2mb filetypes:pdf|jpg] [quiz q "1+1?|2"] [submit]')
    parsed = fields(text)
    assert [(field["type"], field["basetype"], field["name"]) for field in parsed] == [
        ("text*", "text", "your-name"), ("email*", "email", "your-email"), ("tel", "tel", "phone"),
        ("url", "url", "site"), ("number", "number", "kids"), ("date", "date", "day"), ("textarea", "textarea", "note"),
        ("select", "select", "year"), ("checkbox", "checkbox", "clubs"), ("radio", "radio", "lunch"),
        ("acceptance", "acceptance", "terms"), ("file", "file", "doc"), ("quiz", "quiz", "q"),
        ("submit", "submit", "")]
    assert set(parsed[0]) == {"type", "basetype", "name", "options", "raw_values", "labels", "values", "pipes",
                              "content"}
    assert parsed[4]["options"] == ["min:1", "max:9"]
    assert parsed[11]["options"] == ["limit:2mb", "filetypes:pdf|jpg"]
    assert messages(text) == []


def test_values_defaults_pipes_and_enclosed_content():
    [select, textarea, acceptance, text] = fields(
        '[select* to "Office|office@school.test" \'Head\'][textarea msg]Dear school,[/textarea]'
        '[acceptance ok optional]I agree[/acceptance][text name placeholder "Your name"]')
    assert select["raw_values"] == ["Office|office@school.test", "Head"]
    assert select["values"] == select["labels"] == ["Office", "Head"]
    assert select["pipes"] == [["Office", "office@school.test"], ["Head", "Head"]]
    assert textarea["content"] == "Dear school,"
    assert acceptance["content"] == "I agree" and acceptance["options"] == ["optional"]
    assert text["options"] == ["placeholder"] and text["values"] == ["Your name"]


def test_literal_text_escaped_tags_and_plain_brackets_are_kept():
    parsed = template.parse('<p>Price [in pounds]</p>[[text not-a-tag]] [ x ] [text* a]')
    assert [part if isinstance(part, str) else part.name for part in parsed.parts] == [
        "<p>Price [in pounds]</p>[text not-a-tag] [ x ] ", "a"]
    assert [problem.message for problem in parsed.problems] == [
        "Unknown tag [in] at character 9; it is shown as text."]


@pytest.mark.parametrize("text, fragment", [
    ("[colour fav]", "Unknown tag [colour]"),
    ("[number n min:abc]", "min needs a number, not 'abc'"),
    ("[file f limit:2xb]", "limit needs a size such as 2mb"),
    ("[file f filetypes:]", "filetypes needs extensions"),
    ("[date d min:2026-13-01]", "min needs a date YYYY-MM-DD"),
    ("[text t maxlength:ten]", "maxlength needs a whole number"),
    ("[text t sparkle]", "unknown option 'sparkle'"),
    ("[text]", "has no field name"),
    ("[text 9lives]", "is not a valid field name"),
    ("[text a] [email a]", "is used by more than one tag"),
    ('[select s "open]', "a quoted value is not closed"),
    ("[text a [submit]", "the tag is not closed with ]"),
    ("[submit* go]", "cannot be required"),
    ("[date d dayofweek:8]", "dayofweek needs day numbers"),
])
def test_unknown_tags_and_broken_options_are_problems(text, fragment):
    assert any(fragment in message for message in messages(text)), messages(text)


def _steps(function, text) -> int:
    """How many lines of the template module `function(text)` executes: a count, not a clock."""
    count = 0

    def trace(frame, event, _arg):
        nonlocal count
        if frame.f_code.co_filename == template.__file__:
            count += 1
            return trace
        return None

    sys.settrace(trace)
    try:
        function(text)
    finally:
        sys.settrace(None)
    return count


HOSTILE = ["[text a", "[", '[select s "', "[textarea x]", "[[", "[text a]x[/text]", "[a]["]


@pytest.mark.parametrize("unit", HOSTILE)
def test_the_scanner_runs_in_linear_time_on_hostile_templates(unit):
    """Doubling a hostile template at most doubles the work (plus a constant): linear, not quadratic.

    Counted in executed lines rather than timed, so a busy machine cannot fail it; a quadratic
    scanner would quadruple (1,000 units are enough to tell).
    """
    for function in (template.parse, lambda text: template.substitute(text, lambda name: "x")):
        small, large = _steps(function, unit * 1000), _steps(function, unit * 2000)
        assert large <= 2.1 * small + 50, (unit, small, large)


def test_substitute_replaces_known_tags_only():
    assert template.substitute("Dear [your-name], [unknown] [_site_title] [a b] [", {
        "your-name": "Sam", "_site_title": "Riverside"}.get) == "Dear Sam, [unknown] Riverside [a b] ["


def test_sizes():
    assert template.parse_size("2mb") == 2 * 1024 * 1024
    assert template.parse_size("512KB") == 512 * 1024
    assert template.parse_size("1000") == 1000
    assert template.parse_size("2 gb") is None and template.parse_size("") is None
