"""The form template language: bracket tags such as `[email* your-email]` inside HTML.

A one-pass scanner, not a chain of regular expressions: `parse(template)` walks the text once,
left to right, and splits it into literal text and FormTags. Every character is looked at a
bounded number of times (closing tags of enclosing forms are found through an index built in
one earlier pass), so the work grows linearly with the template, whatever it contains.

Syntax of one tag (as the reference's form-tag syntax):

    [type name option option:value "value" 'value']          [text* your-name placeholder "Name"]
    [type name ...]content[/type]                            [textarea note]Default text[/textarea]
    [[text not-a-tag]]                                       written out as the literal [text not-a-tag]

`type` may end with `*` (required). Unquoted words after the name are options, quoted strings
are values; a value `"Label|sent"` is a pipe: the form shows the part before `|`, mail gets the
part after. Unknown tag types and malformed options become ConfigProblems (reported in
`config_errors` on save); the scanner never raises.

`substitute(text, lookup)` replaces `[name]` tags in mail templates the same way (one pass).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable

# Types and what they take: (needs a name, may enclose content).
TAG_TYPES: dict[str, tuple[bool, bool]] = {
    "text": (True, False), "email": (True, False), "tel": (True, False), "url": (True, False),
    "number": (True, False), "range": (True, False), "date": (True, False), "textarea": (True, True),
    "select": (True, False), "checkbox": (True, False), "radio": (True, False), "acceptance": (True, True),
    "file": (True, False), "quiz": (True, False), "hidden": (True, False), "submit": (False, False),
}
REQUIRABLE = {"text", "email", "tel", "url", "number", "range", "date", "textarea", "select", "checkbox", "file"}
# Options each type understands (name:value or bare words); anything else is a config problem.
COMMON_OPTIONS = {"id", "class", "autocomplete"}
TYPE_OPTIONS: dict[str, set[str]] = {
    "text": {"minlength", "maxlength", "size", "placeholder", "watermark", "default", "readonly"},
    "email": {"minlength", "maxlength", "size", "placeholder", "watermark", "default", "readonly"},
    "tel": {"minlength", "maxlength", "size", "placeholder", "watermark", "default", "readonly"},
    "url": {"minlength", "maxlength", "size", "placeholder", "watermark", "default", "readonly"},
    "number": {"min", "max", "step", "placeholder", "watermark", "default", "readonly"},
    "range": {"min", "max", "step", "default", "readonly"},
    "date": {"min", "max", "step", "placeholder", "watermark", "default", "readonly", "dayofweek"},
    "textarea": {"minlength", "maxlength", "cols", "rows", "placeholder", "watermark", "default", "readonly"},
    "select": {"multiple", "include_blank", "first_as_label", "default", "min_items", "max_items"},
    "checkbox": {"exclusive", "label_first", "use_label_element", "default", "min_items", "max_items"},
    "radio": {"label_first", "use_label_element", "default"},
    "acceptance": {"optional", "invert"},
    "file": {"limit", "filetypes", "min_size"},
    "quiz": {"size", "maxlength"},
    "hidden": {"default"},
    "submit": set(),
}
MAX_TEMPLATE_CHARACTERS = 200_000
MAX_TAGS = 200
MAX_PROBLEMS = 50
NAME_FIRST = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
NAME_REST = NAME_FIRST | set("0123456789:._-")
TYPE_REST = set("abcdefghijklmnopqrstuvwxyz0123456789_-")
SIZE_UNITS = {"": 1, "b": 1, "kb": 1024, "mb": 1024 * 1024}


@dataclass
class FormTag:
    """One tag of a form template, in the reference's field shape (`as_field`)."""

    type: str
    basetype: str
    name: str
    options: list[str] = field(default_factory=list)
    raw_values: list[str] = field(default_factory=list)
    content: str = ""
    start: int = 0  # offset in the template, for messages

    @property
    def required(self) -> bool:
        return self.type.endswith("*")

    @property
    def pipes(self) -> list[list[str]]:
        return [[before, after] for before, after in (split_pipe(value) for value in self.raw_values)]

    @property
    def values(self) -> list[str]:
        """What the form shows and the client posts (the part before each pipe)."""
        return [split_pipe(value)[0] for value in self.raw_values]

    @property
    def labels(self) -> list[str]:
        return self.values

    def has_option(self, name: str) -> bool:
        return any(option == name or option.startswith(name + ":") for option in self.options)

    def option(self, name: str) -> str | None:
        """The value of `name:value` (the first one), or None."""
        for option in self.options:
            if option.startswith(name + ":"):
                return option[len(name) + 1:]
        return None

    def piped(self, value: str) -> str:
        """What mail gets for a posted value: the part after the pipe of the matching value."""
        for before, after in self.pipes:
            if before == value:
                return after
        return value

    def as_field(self) -> dict:
        return {"type": self.type, "basetype": self.basetype, "name": self.name, "options": list(self.options),
                "raw_values": list(self.raw_values), "labels": self.labels, "values": self.values,
                "pipes": self.pipes, "content": self.content}


@dataclass(frozen=True)
class ConfigProblem:
    """A configuration problem found in a template: where (a property path) and what."""

    path: str
    message: str


@dataclass
class ParsedTemplate:
    parts: list  # str (literal text) or FormTag, in order
    problems: list[ConfigProblem]

    @property
    def tags(self) -> list[FormTag]:
        return [part for part in self.parts if isinstance(part, FormTag)]

    def field(self, name: str) -> FormTag | None:
        for tag in self.tags:
            if tag.name == name:
                return tag
        return None


def split_pipe(value: str) -> tuple[str, str]:
    before, bar, after = value.partition("|")
    return (before, after) if bar else (value, value)


def _closing_index(text: str) -> dict[str, list[int]]:
    """Positions of every `[/type]` in `text`, by type: one pass over the text."""
    index: dict[str, list[int]] = {}
    position = text.find("[/")
    while position != -1:
        end = position + 2
        while end < len(text) and text[end] in TYPE_REST:
            end += 1
        if end < len(text) and text[end] == "]" and end > position + 2:
            index.setdefault(text[position + 2:end], []).append(position)
        position = text.find("[/", position + 2)
    return index


def parse(text: str, path: str = "form") -> ParsedTemplate:
    """Split a form template into literal text and FormTags, collecting problems (never raises)."""
    problems: list[ConfigProblem] = []
    if len(text) > MAX_TEMPLATE_CHARACTERS:
        problems.append(ConfigProblem(path, f"The form template is longer than {MAX_TEMPLATE_CHARACTERS:,} characters."))
        text = text[:MAX_TEMPLATE_CHARACTERS]
    closings = _closing_index(text)
    parts: list = []
    literal: list[str] = []
    names: set[str] = set()
    position, length = 0, len(text)
    next_double_close = text.find("]]")
    tag_count = 0
    while position < length:
        bracket = text.find("[", position)
        if bracket == -1:
            literal.append(text[position:])
            break
        literal.append(text[position:bracket])
        if text.startswith("[[", bracket):  # escaped: [[text x]] is the literal [text x]
            if next_double_close != -1 and next_double_close < bracket + 2:
                next_double_close = text.find("]]", bracket + 2)  # each "]]" is looked for once: linear
            close = next_double_close
            inner_bracket = text.find("[", bracket + 2, close if close != -1 else bracket + 2)
            if close != -1 and inner_bracket == -1:
                literal.append(text[bracket + 1:close + 1])
                position = close + 2
                continue
        scanned = _scan_tag(text, bracket, closings, problems, path)
        if scanned is None:
            literal.append("[")
            position = bracket + 1
            continue
        tag, position = scanned
        if tag is None:  # an unknown tag: kept as text, reported
            literal.append(text[bracket:position])
            continue
        tag_count += 1
        if tag_count > MAX_TAGS:
            problems.append(ConfigProblem(path, f"A form has at most {MAX_TAGS} tags."))
            break
        if tag.name:
            if tag.name in names:
                problems.append(ConfigProblem(path, f"The field name {tag.name!r} is used by more than one tag."))
            names.add(tag.name)
        parts.append("".join(literal))
        literal = []
        parts.append(tag)
    parts.append("".join(literal))
    if len(problems) > MAX_PROBLEMS:
        problems = problems[:MAX_PROBLEMS] + [ConfigProblem(path, f"... and {len(problems) - MAX_PROBLEMS} more.")]
    return ParsedTemplate([part for part in parts if part != ""], problems)


def _scan_tag(text: str, start: int, closings: dict[str, list[int]], problems: list[ConfigProblem], path: str):
    """(FormTag or None for an unknown type, position after it), or None when `[` does not open a tag."""
    length = len(text)
    cursor = start + 1
    while cursor < length and text[cursor] in TYPE_REST:
        cursor += 1
    kind = text[start + 1:cursor]
    if not kind or not kind[0].isalpha():
        return None
    required = cursor < length and text[cursor] == "*"
    if required:
        cursor += 1
    if cursor >= length or text[cursor] not in " \t\r\n]":
        return None
    tokens, values, end, error = _scan_body(text, cursor)
    if error:
        if kind in TAG_TYPES:
            problems.append(ConfigProblem(path, f"The tag [{kind}{'*' if required else ''}] at character {start}: {error}"))
        return None
    if kind not in TAG_TYPES:
        problems.append(ConfigProblem(path, f"Unknown tag [{kind}] at character {start}; it is shown as text."))
        return None, end
    needs_name, encloses = TAG_TYPES[kind]
    label = f"[{kind}{'*' if required else ''}]"
    if required and kind not in REQUIRABLE:
        problems.append(ConfigProblem(path, f"The tag {label} cannot be required (no * on {kind})."))
    name = ""
    options = [token for token in tokens]
    if needs_name:
        if not options:
            problems.append(ConfigProblem(path, f"The tag {label} at character {start} has no field name."))
        else:
            name = options.pop(0)
            if name[0] not in NAME_FIRST or any(character not in NAME_REST for character in name):
                problems.append(ConfigProblem(path, f"{name!r} is not a valid field name: start with a letter, "
                                                    "then letters, digits, '-', '_', ':' or '.'."))
            elif name.startswith("_"):
                problems.append(ConfigProblem(path, f"The field name {name!r} is reserved."))
    tag = FormTag(type=kind + ("*" if required else ""), basetype=kind, name=name, options=options,
                  raw_values=values, start=start)
    for option in options:
        problem = _check_option(tag, option)
        if problem:
            problems.append(ConfigProblem(path, f"{label} {name}: {problem}".replace("  ", " ")))
    if encloses:
        candidates = closings.get(kind, [])
        found = bisect_right(candidates, end - 1)
        if found < len(candidates):
            closing = candidates[found]
            next_open = text.find(f"[{kind}", end)
            if next_open == -1 or next_open > closing:
                tag.content = text[end:closing]
                end = closing + len(kind) + 3
    return tag, end


def _scan_body(text: str, cursor: int):
    """(unquoted tokens, quoted values, position after `]`, error or '') from inside a tag."""
    tokens: list[str] = []
    values: list[str] = []
    length = len(text)
    while cursor < length:
        character = text[cursor]
        if character in " \t\r\n":
            cursor += 1
        elif character == "]":
            return tokens, values, cursor + 1, ""
        elif character in "\"'":
            close = text.find(character, cursor + 1)
            if close == -1:
                return tokens, values, cursor, "a quoted value is not closed"
            values.append(text[cursor + 1:close])
            cursor = close + 1
        elif character == "[":
            return tokens, values, cursor, "the tag is not closed with ]"
        else:
            begin = cursor
            while cursor < length and text[cursor] not in " \t\r\n]\"'[":
                cursor += 1
            tokens.append(text[begin:cursor])
    return tokens, values, cursor, "the tag is not closed with ]"


def parse_size(text: str) -> int | None:
    """Bytes of `2mb`, `512kb`, `1000` (case-insensitive); None when it is not a size."""
    lowered = text.strip().lower()
    digits = len(lowered) - len(lowered.lstrip("0123456789"))
    number, unit = lowered[:digits], lowered[digits:]
    if not number or unit not in SIZE_UNITS or len(number) > 12:
        return None
    return int(number) * SIZE_UNITS[unit]


def _is_int(value: str) -> bool:
    body = value[1:] if value.startswith("-") else value
    return body.isdigit() and len(body) <= 15


def _is_number(value: str) -> bool:
    body = value[1:] if value.startswith("-") else value
    whole, _dot, fraction = body.partition(".")
    return whole.isdigit() and (fraction == "" or fraction.isdigit()) and len(body) <= 20


def _is_date(value: str) -> bool:
    import datetime

    if len(value) != 10:
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _check_option(tag: FormTag, option: str) -> str:
    """Why `option` is broken for this tag, or ''."""
    name, colon, value = option.partition(":")
    allowed = COMMON_OPTIONS | TYPE_OPTIONS.get(tag.basetype, set())
    if "x" in option and not colon and tag.basetype in ("text", "email", "tel", "url", "textarea", "quiz"):
        columns, _x, rows = option.partition("x")  # the size shorthand 40x10 / 40/
        if (columns.isdigit() or columns == "") and (rows.isdigit() or rows == ""):
            return ""
    if "/" in option and not colon:
        size, _slash, maximum = option.partition("/")
        if (size.isdigit() or size == "") and (maximum.isdigit() or maximum == ""):
            return ""
    if name not in allowed:
        return f"unknown option {option!r}."
    if name in ("minlength", "maxlength", "size", "cols", "rows", "min_items", "max_items"):
        return "" if value.isdigit() and len(value) <= 9 else f"{name} needs a whole number, not {value!r}."
    if name in ("min", "max", "step"):
        if tag.basetype == "date":
            if name == "step":
                return "" if value.isdigit() else f"step needs a whole number of days, not {value!r}."
            return "" if _is_date(value) or value == "today" else f"{name} needs a date YYYY-MM-DD, not {value!r}."
        return "" if _is_number(value) else f"{name} needs a number, not {value!r}."
    if name in ("limit", "min_size"):
        return "" if parse_size(value) is not None else f"{name} needs a size such as 2mb or 500kb, not {value!r}."
    if name == "filetypes":
        kinds = [kind for kind in value.split("|")]
        if not value or any(not kind or not all(c.isalnum() or c in "./+-*" for c in kind) for kind in kinds):
            return f"filetypes needs extensions such as pdf|jpg, not {value!r}."
        return ""
    if name == "dayofweek":
        days = value.split("|") if value else []
        if not days or any(day not in "1234567" or len(day) != 1 for day in days):
            return f"dayofweek needs day numbers 1 (Monday) to 7 (Sunday) such as 1|2|3, not {value!r}."
        return ""
    if name == "default":
        return "" if value else "default needs a value (default:1 or default:get)."
    if name in ("id", "class"):
        return "" if value and all(c.isalnum() or c in "_-" for c in value) else f"{name} needs a name, not {value!r}."
    if name == "autocomplete":
        return "" if value and all(c.isalnum() or c in "_- " for c in value) else "autocomplete needs a value."
    if colon:
        return f"{name} takes no value."
    return ""


def substitute(text: str, lookup: Callable[[str], str | None]) -> str:
    """Replace every `[name]` whose `lookup(name)` is not None; other brackets stay. One pass."""
    out: list[str] = []
    position, length = 0, len(text)
    while position < length:
        bracket = text.find("[", position)
        if bracket == -1:
            out.append(text[position:])
            break
        out.append(text[position:bracket])
        close = bracket + 1
        while close < length and text[close] in NAME_REST:
            close += 1
        if close < length and text[close] == "]" and close > bracket + 1:
            replacement = lookup(text[bracket + 1:close])
            if replacement is not None:
                out.append(replacement)
                position = close + 1
                continue
        out.append("[")
        position = bracket + 1
    return "".join(out)
