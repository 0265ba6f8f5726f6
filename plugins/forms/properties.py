"""A form's properties: their defaults, the GET shape, what a write may change, and config_errors.

Stored as one JSON document per form (tables.forms_forms.properties): `form` (the template),
`mail`, `mail_2`, `messages` and `additional_settings`. `shape(...)` turns them into the
reference's GET shape (`form` becomes `{content, fields}`, `additional_settings` becomes
`{content, settings: [[name, value], ...]}`).
"""

from __future__ import annotations

from typing import Any

from . import template
from .mailing import tags_in, visitor_tags
from host.mail import parse_address

DEFAULT_FORM = """<label> Your name
    [text* your-name autocomplete:name] </label>

<label> Your email
    [email* your-email autocomplete:email] </label>

<label> Subject
    [text* your-subject] </label>

<label> Your message (optional)
    [textarea your-message] </label>

[submit "Submit"]"""

MAIL_KEYS = ("active", "subject", "sender", "body", "recipient", "additional_headers", "attachments", "use_html",
             "exclude_blank")


def default_mail() -> dict[str, Any]:
    return {
        "active": True,
        "subject": '[_site_title] "[your-subject]"',
        "sender": "[_site_title] <[_site_from_address]>",
        "body": "From: [your-name] <[your-email]>\nSubject: [your-subject]\n\nMessage:\n[your-message]\n\n-- \n"
                "Sent from the contact form of [_site_title] ([_site_url]).",
        "recipient": "[_site_admin_email]",
        "additional_headers": "Reply-To: [your-email]",
        "attachments": "",
        "use_html": False,
        "exclude_blank": False,
    }


def default_mail_2() -> dict[str, Any]:
    return {
        "active": False,
        "subject": '[_site_title] "[your-subject]"',
        "sender": "[_site_title] <[_site_from_address]>",
        "body": "Message:\n[your-message]\n\n-- \nThis is a copy of the message you sent through the contact "
                "form of [_site_title] ([_site_url]). If you did not send it, you can ignore this email.",
        "recipient": "[your-email]",
        "additional_headers": "Reply-To: [_site_admin_email]",
        "attachments": "",
        "use_html": False,
        "exclude_blank": False,
    }


# Our own wording of each message key the reference defines.
DEFAULT_MESSAGES = {
    "mail_sent_ok": "Thank you, your message has been sent.",
    "mail_sent_ng": "Sorry, your message could not be sent. Please try again later.",
    "validation_error": "Some fields need your attention. Please check them and send again.",
    "spam": "Sorry, your message could not be sent. Please try again later.",
    "accept_terms": "Please accept the terms before sending your message.",
    "invalid_required": "Please fill in this field.",
    "invalid_too_long": "This is longer than allowed.",
    "invalid_too_short": "This is shorter than required.",
    "upload_failed": "The file could not be uploaded.",
    "upload_file_type_invalid": "Files of this type are not accepted.",
    "upload_file_too_large": "The file is larger than allowed.",
    "upload_failed_php_error": "The file could not be received.",
    "invalid_date": "Please enter a date as YYYY-MM-DD.",
    "date_too_early": "This date is earlier than allowed.",
    "date_too_late": "This date is later than allowed.",
    "invalid_number": "Please enter a number.",
    "number_too_small": "This number is smaller than allowed.",
    "number_too_large": "This number is larger than allowed.",
    "quiz_answer_not_correct": "That answer is not correct.",
    "invalid_email": "Please enter an email address.",
    "invalid_url": "Please enter a web address.",
    "invalid_tel": "Please enter a telephone number.",
    "captcha_not_match": "The code you entered does not match.",
}

PROPERTY_KEYS = ("form", "mail", "mail_2", "messages", "additional_settings")
MAX_TEXT = 100_000


def defaults() -> dict[str, Any]:
    return {"form": DEFAULT_FORM, "mail": default_mail(), "mail_2": default_mail_2(),
            "messages": dict(DEFAULT_MESSAGES), "additional_settings": ""}


def parse_additional_settings(text: str) -> list[list[Any]]:
    """`name: value` lines as [[name, value], ...]; on/true become True and off/false False."""
    settings: list[list[Any]] = []
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        name = name.strip()
        if not colon or not name or not all(c.isalnum() or c in "_-" for c in name):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        lowered = value.lower()
        settings.append([name, True if lowered in ("on", "true") else False if lowered in ("off", "false") else value])
    return settings


def setting(properties: dict[str, Any], name: str, default: Any = None) -> Any:
    """The last value of an additional setting, or `default`."""
    found = default
    for key, value in parse_additional_settings(properties.get("additional_settings") or ""):
        if key == name:
            found = value
    return found


def shape(properties: dict[str, Any], parsed: template.ParsedTemplate | None = None) -> dict[str, Any]:
    """The reference's GET shape of `properties`."""
    parsed = parsed or template.parse(properties.get("form", ""))
    result = dict(properties)
    result["form"] = {"content": properties.get("form", ""), "fields": [tag.as_field() for tag in parsed.tags]}
    result["additional_settings"] = {"content": properties.get("additional_settings", ""),
                                     "settings": parse_additional_settings(properties.get("additional_settings", ""))}
    return result


def merge(current: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """`current` with what a write sent (partial: only the properties sent change; `messages` is
    replaced whole by the keys sent)."""
    merged = {key: (dict(value) if isinstance(value, dict) else value) for key, value in current.items()}
    for key in PROPERTY_KEYS:
        if key not in sent or sent[key] is None:
            continue
        value = sent[key]
        if key in ("mail", "mail_2"):
            mail = dict(merged.get(key) or {})
            mail.update({name: value[name] for name in MAIL_KEYS if name in value})
            if key == "mail" and "active" not in value:
                mail["active"] = True  # sending `mail` turns it on, as the reference does (unless it says otherwise)
            merged[key] = mail
        elif key == "messages":
            # Sent messages replace the stored map, as the real plugin stores them: the answer shows
            # only those, and a key left out falls back to its default when used (Form.message).
            merged["messages"] = {name: text for name, text in value.items() if name in DEFAULT_MESSAGES}
        elif key == "form" and isinstance(value, dict):
            merged["form"] = value.get("content", merged.get("form", ""))
        elif key == "additional_settings" and isinstance(value, dict):
            merged["additional_settings"] = value.get("content", merged.get("additional_settings", ""))
        else:
            merged[key] = value
    return merged


def config_errors(properties: dict[str, Any], parsed: template.ParsedTemplate) -> dict[str, list[dict[str, str]]]:
    """Configuration problems keyed by property path (`form`, `mail.sender`, ...); {} when none."""
    errors: dict[str, list[dict[str, str]]] = {}

    def add(path: str, message: str) -> None:
        errors.setdefault(path, []).append({"message": message, "link": ""})

    for problem in parsed.problems:
        add(problem.path, problem.message)
    if not any(tag.basetype == "submit" for tag in parsed.tags):
        add("form", "The form has no [submit] button.")
    names = {tag.name for tag in parsed.tags if tag.name}
    for key in ("mail", "mail_2"):
        mail = properties.get(key) or {}
        if not mail.get("active"):
            continue
        addresses = {tag.name for tag in parsed.tags if tag.basetype == "email" or _piped_addresses(tag)}
        _check_mail(key, mail, names, addresses, add)
        if f"{key}.recipient" not in errors:  # a recipient that is no address says enough
            _check_autoreply(key, mail, parsed, add)
    return errors


def _piped_addresses(tag: template.FormTag) -> bool:
    """A choice whose every value stands for an address (`"Admissions|admissions@school.test"`): as a
    recipient it gives an address, the reference's way to let visitors pick a department."""
    if tag.basetype not in ("select", "radio", "checkbox") or not tag.raw_values:
        return False
    try:
        for _shown, address in tag.pipes:
            parse_address(address, "recipient")
    except ValueError:
        return False
    return True


def _check_autoreply(key: str, mail: dict[str, Any], parsed: template.ParsedTemplate, add) -> None:
    """A mail to an address the visitor types leaves visitor text out of its headers: say so where it is used."""
    from_visitor = visitor_tags(parsed.tags)
    if not from_visitor.intersection(tags_in(str(mail.get("recipient") or ""))):
        return
    for name in ("subject", "sender", "additional_headers"):
        used = [tag for tag in tags_in(str(mail.get(name) or "")) if tag in from_visitor]
        if used:
            tags = ", ".join(f"[{tag}]" for tag in used)
            add(f"{key}.{name}", f"This mail goes to an address the visitor types, so {tags} will be left empty "
                "here (an autoreply carries no visitor text in its headers).")


def _check_mail(key: str, mail: dict[str, Any], names: set[str], emails: set[str], add) -> None:
    address_tags = {"_site_admin_email", "_site_from_address"} | emails

    def sample(text: str) -> str:
        # Tags stand for what they will hold: an address for email fields and the site's addresses,
        # a word for anything else (so `[your-name]` as a recipient is reported, as it should be).
        return template.substitute(text, lambda name: "someone@school.test" if name in address_tags
                                   else "Name" if name in names or name.startswith("_") else None)

    for name in ("recipient", "sender"):
        text = str(mail.get(name) or "")
        if not text.strip():
            add(f"{key}.{name}", f"The {name} is empty.")
            continue
        if "\n" in text or "\r" in text:
            add(f"{key}.{name}", f"The {name} must be on one line.")
            continue
        for part in _split_addresses(sample(text)) if name == "recipient" else [sample(text)]:
            try:
                parse_address(part, name)
            except ValueError:
                add(f"{key}.{name}", f"{text.strip()!r} does not give a valid email address.")
                break
    if "\n" in str(mail.get("subject") or "") or "\r" in str(mail.get("subject") or ""):
        add(f"{key}.subject", "The subject must be on one line.")
    for line in str(mail.get("additional_headers") or "").splitlines():
        header, colon, value = line.partition(":")
        if line.strip() and (not colon or not header.strip() or not all(33 <= ord(c) <= 126 for c in header.strip())):
            add(f"{key}.additional_headers", f"{line!r} is not a header line (Name: value).")
    for line in str(mail.get("attachments") or "").splitlines():
        for word in line.split():
            if word.startswith("[") and word.endswith("]") and word[1:-1] not in names:
                add(f"{key}.attachments", f"{word} names no field of the form.")
    for name in ("body", "subject"):
        text = mail.get(name)
        if not isinstance(text, str):
            add(f"{key}.{name}", f"The {name} must be text.")
        elif len(text) > MAX_TEXT:
            add(f"{key}.{name}", f"The {name} is longer than {MAX_TEXT:,} characters.")


def _split_addresses(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]
