"""A form's mail templates made into host.mail Messages from one submission.

`[your-name]`-style tags take the posted value (the part after a pipe for choices), `[_raw_x]`
the value as posted, and `[_site_title]`, `[_date]` ... the facts of the site and the
submission. Values that land in a header lose their line breaks first (header injection), and
host.mail refuses anything still unsafe.

A mail whose recipient comes from what the visitor typed (an autoreply) could carry anyone's
text to anyone: its headers take no visitor text (those tags stay empty), and `feedback` sends
it only after the spam check and within the per-recipient daily limit.
"""

from __future__ import annotations

import datetime
import html
from typing import Any

from host.mail import Attachment, Message, parse_address
from host.text import html_to_text

from . import template

HEADER_FIELDS = ("subject", "sender", "recipient", "additional_headers")
ALLOWED_EXTRA_HEADERS_PREFIX = "x-"
# Special tags that stand for what the visitor's browser sent, not for facts of the site.
VISITOR_SPECIALS = frozenset({"_remote_ip", "_user_agent", "_url"})
CHOICE_TYPES = ("select", "checkbox", "radio")


def visitor_tags(tags) -> set[str]:
    """Mail tags whose text the visitor chooses: every field but acceptances and choices held to their list."""
    names = set(VISITOR_SPECIALS)
    for tag in tags:
        if not tag.name or tag.basetype in ("submit", "acceptance") or tag.basetype in CHOICE_TYPES and tag.values:
            continue
        names.update((tag.name, "_raw_" + tag.name))
    return names


def tags_in(text: str) -> list[str]:
    """The `[name]` tags that a mail template names."""
    names: list[str] = []
    template.substitute(text, lambda name: names.append(name) or "")
    return names


def field_values(form, values: dict[str, Any], files: dict[str, list[dict[str, Any]]]) -> dict[str, tuple[str, str]]:
    """{field: (mail value, raw value)} for every named tag of the form."""
    result: dict[str, tuple[str, str]] = {}
    for tag in form.parsed.tags:
        if not tag.name:
            continue
        if tag.basetype == "file":
            names = ", ".join(upload["name"] for upload in files.get(tag.name, []))
            result[tag.name] = (names, names)
            continue
        value = values.get(tag.name)
        items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
        items = [item for item in items if isinstance(item, str)]
        if tag.basetype == "acceptance":
            accepted = bool(items and items[0])
            result[tag.name] = ("yes" if accepted else "no", "1" if accepted else "")
            continue
        raw = ", ".join(items)
        piped = ", ".join(tag.piped(item) for item in items) if tag.basetype in ("select", "checkbox", "radio") \
            else raw
        result[tag.name] = (piped, raw)
    return result


def site_values(app, form, submission: dict[str, Any]) -> dict[str, str]:
    now = datetime.datetime.now(app.timezone())
    site = app.settings.site
    return {
        "_site_title": site.get("name", ""), "_site_description": site.get("description", ""),
        "_site_url": submission.get("site_url", ""), "_site_admin_email": submission.get("admin_email", ""),
        "_site_from_address": app.mail.settings.from_address, "_remote_ip": submission.get("ip", ""),
        "_user_agent": submission.get("user_agent", ""), "_url": submission.get("url", ""),
        "_date": now.strftime("%Y-%m-%d"), "_time": now.strftime("%H:%M"), "_form_id": str(form.id),
        "_form_title": form.title, "_form_name": form.slug, "_post_id": str(submission.get("container_post", 0)),
        "_serial_number": str(submission.get("id", "")), "_invalid_fields": "0",
    }


def build(app, form, mail: dict[str, Any], values: dict[str, Any], files: dict[str, list[dict[str, Any]]],
          file_data: dict[str, bytes], submission: dict[str, Any]) -> tuple[Message, list[str], list[str]]:
    """The Message of one mail template, the stored paths of the files it attaches, and the recipients
    the visitor gave (an autoreply when not empty). ValueError if unusable."""
    fields = field_values(form, values, files)
    specials = site_values(app, form, submission)
    use_html = bool(mail.get("use_html"))
    from_visitor = visitor_tags(form.parsed.tags)
    hidden: set[str] = set()  # tags left empty in the headers

    def lookup(header: bool, escape: bool):
        def find(name: str) -> str | None:
            if header and name in hidden:
                return ""
            if name in fields:
                text = fields[name][0]
            elif name.startswith("_raw_") and name[5:] in fields:
                text = fields[name[5:]][1]
            elif name in specials:
                text = specials[name]
            else:
                return None
            if header:
                text = " ".join(text.split())  # no line break can reach a header
            return html.escape(text) if escape else text
        return find

    def fill(text: Any, header: bool = False, escape: bool = False) -> str:
        return template.substitute(str(text or ""), lookup(header, escape))

    body_template = str(mail.get("body") or "")
    if mail.get("exclude_blank"):
        body_template = "\n".join(line for line in body_template.splitlines() if not _blank_line(line, fields))
    body = fill(body_template, escape=use_html)
    recipients: list[str] = []
    visitor_recipients: list[str] = []
    for part in str(mail.get("recipient") or "").split(","):  # a tag name has no comma
        addresses = [address.strip() for address in fill(part, header=True).split(",") if address.strip()]
        recipients.extend(addresses)
        if from_visitor.intersection(tags_in(part)):
            visitor_recipients.extend(addresses)
    if visitor_recipients:
        hidden = from_visitor  # an autoreply's subject, sender and headers carry no visitor text
    reply_to = None
    headers: dict[str, str] = {}
    # Split the template into lines before filling it: a value with line breaks stays in its own header.
    for line in str(mail.get("additional_headers") or "").splitlines():
        name, colon, value = line.partition(":")
        name, value = name.strip(), " ".join(fill(value, header=True).split())
        if not colon or not name or not value:
            continue
        if name.lower() == "reply-to":
            reply_to = value if _is_address(value) else None  # an empty or bad optional field: no Reply-To
        elif name.lower().startswith(ALLOWED_EXTRA_HEADERS_PREFIX) or name.lower() == "list-unsubscribe":
            headers[name] = value
    attachments, attached_paths = [], []
    for word in str(mail.get("attachments") or "").split():
        name = word.strip("[]")
        for upload in files.get(name, []):
            attachments.append(Attachment(upload["name"], upload["content_type"], file_data[upload["path"]]))
            attached_paths.append(upload["path"])
    message = Message(
        to=recipients, subject=fill(mail.get("subject"), header=True),
        text=html_to_text(body) if use_html else body, html=body if use_html else None,
        sender=fill(mail.get("sender"), header=True) or None, reply_to=reply_to, headers=headers,
        attachments=attachments)
    return message, attached_paths, visitor_recipients


def _blank_line(line: str, fields: dict[str, tuple[str, str]]) -> bool:
    """True when the line names a field tag and every field it names is empty."""
    names = []
    template.substitute(line, lambda name: names.append(name) or "")
    named = [name for name in names if name in fields]
    return bool(named) and all(not fields[name][0] for name in named)


def _is_address(value: str) -> bool:
    try:
        parse_address(value, "reply_to")
    except ValueError:
        return False
    return True
