"""Field rules: the schema of a form (`feedback/schema`) and the validation of a submission by it.

`schema_rules(form)` turns the form's tags into the reference's rule list
(`{rule, field, error, ...}`); `validate(form, values, files)` checks posted values against
exactly those rules, so the client-side script and the server agree. Quiz answers are checked
here too (they are not schema rules: the answer is signed, not published).
"""

from __future__ import annotations

import datetime
import math
from typing import Any
from urllib.parse import urlsplit

from . import template
from host.mail import parse_address
from host.signing import Signer

SCHEMA_VERSION = "Forms SWV Schema 2024-10"
DEFAULT_MAXLENGTH = {"text": 400, "email": 400, "tel": 400, "url": 400, "textarea": 2000}
DEFAULT_FILE_LIMIT = 1024 * 1024  # the reference's default for a [file] tag without limit:
DEFAULT_FILETYPES = ["jpg", "jpeg", "png", "gif", "pdf", "doc", "docx", "ppt", "pptx", "odt", "avi", "ogg", "m4a",
                     "mov", "mp3", "mp4", "mpg", "wav", "wmv"]
TEL_CHARACTERS = set("0123456789+-(). /")

# The message key each rule reports with.
RULE_MESSAGES = {
    "required": "invalid_required", "requiredfile": "invalid_required", "email": "invalid_email",
    "url": "invalid_url", "tel": "invalid_tel", "number": "invalid_number", "date": "invalid_date",
    "time": "invalid_date", "file": "upload_file_type_invalid", "minlength": "invalid_too_short",
    "maxlength": "invalid_too_long", "minnumber": "number_too_small", "maxnumber": "number_too_large",
    "mindate": "date_too_early", "maxdate": "date_too_late", "minfilesize": "upload_failed",
    "maxfilesize": "upload_file_too_large", "minitems": "invalid_too_short", "maxitems": "invalid_too_long",
    "stepnumber": "invalid_number", "enum": "validation_error", "dayofweek": "invalid_date",
    "all": "validation_error", "any": "validation_error",
}


def file_limit(tag: template.FormTag, hard_limit: int) -> int:
    limit = template.parse_size(tag.option("limit") or "") or DEFAULT_FILE_LIMIT
    return min(limit, hard_limit)


def file_types(tag: template.FormTag) -> list[str]:
    option = tag.option("filetypes")
    kinds = [kind.lower().lstrip(".") for kind in option.split("|")] if option else list(DEFAULT_FILETYPES)
    return [kind for kind in kinds if kind]


def schema_rules(form, hard_file_limit: int) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []

    def add(rule: str, tag: template.FormTag, **extra: Any) -> None:
        rules.append({"rule": rule, "field": tag.name, "error": form.message(RULE_MESSAGES[rule]), **extra})

    for tag in form.parsed.tags:
        kind = tag.basetype
        if not tag.name or kind in ("submit", "acceptance", "quiz", "hidden"):
            continue
        if tag.required:
            add("requiredfile" if kind == "file" else "required", tag)
        if kind in ("email", "url", "tel"):
            add(kind, tag)
        if kind in ("number", "range"):
            add("number", tag)
        if kind == "date":
            add("date", tag)
        if kind in DEFAULT_MAXLENGTH:
            if tag.option("minlength"):
                add("minlength", tag, threshold=int(tag.option("minlength")))
            maximum = tag.option("maxlength")
            add("maxlength", tag, threshold=int(maximum) if maximum and maximum.isdigit() else DEFAULT_MAXLENGTH[kind])
        if kind in ("number", "range"):
            for option, rule in (("min", "minnumber"), ("max", "maxnumber")):
                if _number(tag.option(option)) is not None:
                    add(rule, tag, threshold=_number(tag.option(option)))
            if _number(tag.option("step")) not in (None, 0):
                add("stepnumber", tag, base=_number(tag.option("min")) or 0, interval=_number(tag.option("step")))
        if kind == "date":
            for option, rule in (("min", "mindate"), ("max", "maxdate")):
                value = tag.option(option)
                if value and (value == "today" or template._is_date(value)):
                    add(rule, tag, threshold=datetime.date.today().isoformat() if value == "today" else value)
            if tag.option("dayofweek"):
                add("dayofweek", tag, accept=[int(day) for day in tag.option("dayofweek").split("|") if day.isdigit()])
        if kind in ("select", "checkbox", "radio") and tag.values:
            add("enum", tag, accept=list(tag.values))
            single = kind == "radio" or (kind == "select" and not tag.has_option("multiple")) or \
                (kind == "checkbox" and tag.has_option("exclusive"))
            if single:
                add("maxitems", tag, threshold=1)
            for option, rule in (("min_items", "minitems"), ("max_items", "maxitems")):
                if tag.option(option) and tag.option(option).isdigit() and not (single and rule == "maxitems"):
                    add(rule, tag, threshold=int(tag.option(option)))
        if kind == "file":
            add("file", tag, accept=[f".{kind}" for kind in file_types(tag)])
            add("maxfilesize", tag, threshold=file_limit(tag, hard_file_limit))
            minimum = template.parse_size(tag.option("min_size") or "")
            if minimum:
                add("minfilesize", tag, threshold=minimum)
    return rules


def _number(text: str | None) -> float | int | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else value


def _items(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str) and item != ""]
    if isinstance(value, str):
        return [value] if value != "" else []
    return ["\x00not-a-value"]  # an object where a value belongs: fails enum and format rules


def _date(value: str) -> datetime.date | None:
    if len(value) != 10:
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        return None


def valid_email(value: str) -> bool:
    if " " in value or "<" in value or "," in value:
        return False
    try:
        return parse_address(value, "email").addr_spec == value
    except ValueError:
        return False


def valid_url(value: str) -> bool:
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    if parts.scheme.lower() in ("mailto", "tel"):
        return bool(parts.path)
    return parts.scheme.lower() in ("http", "https", "ftp", "ftps") and bool(parts.netloc) and " " not in value


def valid_tel(value: str) -> bool:
    return any(character.isdigit() for character in value) and all(character in TEL_CHARACTERS for character in value)


def check(rule: dict[str, Any], value: Any, files: list[dict[str, Any]]) -> bool:
    """True when `value` (and `files`) pass `rule`."""
    name = rule["rule"]
    if name == "all":
        return all(check(inner, value, files) for inner in rule.get("rules", []))
    if name == "any":
        return any(check(inner, value, files) for inner in rule.get("rules", []))
    if name == "requiredfile":
        return bool(files)
    if name in ("file", "minfilesize", "maxfilesize"):
        for upload in files:
            if name == "file":
                extension = "." + upload["name"].rsplit(".", 1)[-1].lower() if "." in upload["name"] else ""
                if extension not in rule["accept"]:
                    return False
            elif name == "minfilesize" and upload["size"] < rule["threshold"]:
                return False
            elif name == "maxfilesize" and upload["size"] > rule["threshold"]:
                return False
        return True
    items = _items(value)
    if name == "required":
        return any(item.strip() for item in items)
    if name == "minitems":
        return len(items) >= rule["threshold"] or not items
    if name == "maxitems":
        return len(items) <= rule["threshold"]
    for item in items:
        if not _check_one(name, rule, item):
            return False
    return True


def _check_one(name: str, rule: dict[str, Any], item: str) -> bool:
    if item == "\x00not-a-value":
        return False
    if name == "email":
        return valid_email(item)
    if name == "url":
        return valid_url(item)
    if name == "tel":
        return valid_tel(item)
    if name == "number":
        return _number(item) is not None and len(item) <= 40
    if name == "date":
        return _date(item) is not None
    if name == "time":
        parts = item.split(":")
        return len(parts) in (2, 3) and all(part.isdigit() and len(part) == 2 for part in parts) and \
            int(parts[0]) < 24 and all(int(part) < 60 for part in parts[1:])
    if name == "minlength":
        return len(item) >= rule["threshold"]
    if name == "maxlength":
        return len(item) <= rule["threshold"]
    if name in ("minnumber", "maxnumber", "stepnumber"):
        number = _number(item)
        if number is None:
            return True  # the number rule reports it
        if name == "minnumber":
            return number >= rule["threshold"]
        if name == "maxnumber":
            return number <= rule["threshold"]
        steps = (number - rule["base"]) / rule["interval"]
        return abs(steps - round(steps)) < 1e-9
    if name in ("mindate", "maxdate", "dayofweek"):
        day = _date(item)
        if day is None:
            return True  # the date rule reports it
        if name == "dayofweek":
            return day.isoweekday() in rule["accept"]
        threshold = _date(rule["threshold"])
        return day >= threshold if name == "mindate" else day <= threshold
    if name == "enum":
        return item in rule["accept"]
    return True


def validate(form, values: dict[str, Any], files: dict[str, list[dict[str, Any]]], hard_file_limit: int,
             quiz_answers: dict[str, str], quiz_hash) -> dict[str, str]:
    """{field: message} of every invalid field (the first failing rule of each)."""
    invalid: dict[str, str] = {}
    for rule in schema_rules(form, hard_file_limit):
        field = rule["field"]
        if field in invalid:
            continue
        if not check(rule, values.get(field), files.get(field, [])):
            invalid[field] = rule["error"]
    for tag in form.parsed.tags:
        if tag.basetype != "quiz" or tag.name in invalid:
            continue
        given = values.get(tag.name)
        expected = quiz_answers.get(tag.name, "")
        if not isinstance(given, str) or not expected or not _same(quiz_hash(given), expected):
            invalid[tag.name] = form.message("quiz_answer_not_correct")
    return invalid


def _same(left: str, right: str) -> bool:
    return Signer.matches(right, left)
