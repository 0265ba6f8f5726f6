"""Contact forms to and from a WordPress export: the reference plugin's `wpcf7_contact_form` posts.

The reference keeps a form's parts as post meta, each array PHP-serialized: `_form` (the
template), `_mail` and `_mail_2` (subject, sender, body, recipient, additional_headers,
attachments, use_html, exclude_blank, active), `_messages` ({key: text}), `_additional_settings`
(text), `_locale` and `_hash`. They map one to one onto a form's properties here, so an export
writes the same meta back and `import(export(site))` keeps every field.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from typing import Any, Iterable

from sqlalchemy import select, update

from host.wxr import WxrExport, WxrImport, WxrItem, php_serialize, php_unserialize
from host.wxr_content import (all_items, author_id, author_logins, content_request, export_request, parse_date,
                              wxr_item)

from . import pages, store, template
from . import properties as props

WORDPRESS_TYPE = "wpcf7_contact_form"
MAIL_FLAGS = ("active", "use_html", "exclude_blank")
HASH = re.compile(r"[0-9a-f]{40}\Z")
DEFAULT_LOCALE = "en_US"
LOCALE = re.compile(r"[A-Za-z]{2,3}(?:_[A-Za-z0-9]{2,8}){0,2}\Z")


def _text(value: Any, name: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{name} is not text")
    text = str(value)
    if len(text) > props.MAX_TEXT:
        raise ValueError(f"{name} is longer than {props.MAX_TEXT:,} characters")
    return text


def _flag(value: Any) -> bool:
    """The reference stores flags as PHP booleans, or "1"/"" in older versions."""
    return value is True or (isinstance(value, (int, str)) and str(value).strip().lower() in ("1", "true", "yes", "on"))


def _mail(raw: str | None, key: str, default: dict[str, Any]) -> dict[str, Any]:
    if raw is None or raw == "":
        return default
    value = php_unserialize(raw)
    if not isinstance(value, dict):
        raise ValueError(f"_{key} is not an array")
    mail = dict(default)
    for name in props.MAIL_KEYS:
        if name in value:
            mail[name] = _flag(value[name]) if name in MAIL_FLAGS else _text(value[name], f"_{key}[{name}]")
    return mail


def properties_of(item: WxrItem) -> tuple[dict[str, Any], list[str]]:
    """(the form's properties, message keys this site has no text for); ValueError when a part is unusable."""
    found = props.defaults()
    found["form"] = _text(item.meta_value("_form") or "", "_form")
    found["mail"] = _mail(item.meta_value("_mail"), "mail", props.default_mail())
    # A form saved before the second mail existed has none: it is off, as the reference reads it.
    found["mail_2"] = _mail(item.meta_value("_mail_2"), "mail_2", {**props.default_mail_2(), "active": False})
    unknown: list[str] = []
    raw_messages = item.meta_value("_messages")
    if raw_messages:
        messages = php_unserialize(raw_messages)
        if not isinstance(messages, dict):
            raise ValueError("_messages is not an array")
        found["messages"] = {}
        for name, text in messages.items():
            if name in props.DEFAULT_MESSAGES:
                found["messages"][name] = _text(text, f"_messages[{name}]")
            else:
                unknown.append(str(name)[:100])
    found["additional_settings"] = _text(item.meta_value("_additional_settings") or "", "_additional_settings")
    return found, unknown


def import_item(app, item: WxrItem, run: WxrImport) -> bool | None:
    if item.post_type != WORDPRESS_TYPE:
        return None
    label = f"{WORDPRESS_TYPE} {item.post_id} ({item.title[:80]!r})"
    if item.status == "trash":
        run.not_imported(label, "the form is in the old site's trash")
        return True
    try:
        properties, unknown = properties_of(item)
    except ValueError as error:
        run.not_imported(label, f"its meta cannot be read: {error}")
        return True
    for name in unknown:
        run.not_imported(f"{label} message {name!r}", "no contact form message of that name exists here")
    title = (item.title or "Untitled")[:500]
    # The reference's forms are published; this site's own export may also write a form whose fields are off.
    status = item.status if item.status in store.STATUSES else "publish"
    locale = item.meta_value("_locale") or DEFAULT_LOCALE
    locale = locale if LOCALE.match(locale) else DEFAULT_LOCALE
    request = content_request(run)
    known = run.new_id("post", item.post_id)
    form = store.load(request, known) if known else None
    parsed = template.parse(properties["form"])
    errors = props.config_errors(properties, parsed)
    if form is None:
        # The old id where it is free: the reference's [contact-form-7 id="…"] shortcodes in pages name it.
        form_id = store.create(request, title, locale, properties, errors, status=status,
                               author=author_id(run, item.author_login), slug=item.slug, item_id=item.post_id,
                               date_gmt=parse_date(item.date_gmt), modified_gmt=parse_date(item.modified_gmt))
        _keep_hash(run, form_id, item.meta_value("_hash"))
        run.remember("post", item.post_id, form_id, item.link or None)
        run.count("created")
    elif (form.title, form.locale, form.status, form.properties) == (title, locale, status, properties):
        run.count("unchanged")
    else:
        store.save(request, form, title, locale, properties, errors, status)
        run.count("updated")
    return True


def _keep_hash(run: WxrImport, form_id: int, old_hash: str | None) -> None:
    """The reference's shortcodes name a form by its hash's first characters: keep the old hash when it is
    free; else the shortcodes naming it are rewritten at the end of the run (`rewrite_shortcodes`)."""
    if not old_hash or not HASH.match(old_hash):
        return
    forms = store.table(run.app, "forms_forms")
    if run.session.execute(select(forms.c.form_id).where(forms.c.hash == old_hash)).first() is None:
        run.session.execute(update(forms).where(forms.c.form_id == form_id).values(hash=old_hash))
    else:
        _run_state(run).moved_hashes[old_hash] = form_id


@dataclass
class _ShortcodeState:
    """What one import run needs to point the shortcodes of its items at the forms as imported."""

    # (new id, the ids its shortcodes give in the file) of each imported item whose content names forms
    items: list[tuple[int, list[str]]] = field(default_factory=list)
    moved_hashes: dict[str, int] = field(default_factory=dict)  # old hash -> new form id, when it was taken


_RUNS: "weakref.WeakKeyDictionary[WxrImport, _ShortcodeState]" = weakref.WeakKeyDictionary()


def _run_state(run: WxrImport) -> _ShortcodeState:
    state = _RUNS.get(run)
    if state is None:
        state = _RUNS[run] = _ShortcodeState()
        run.after_all(lambda finished: rewrite_shortcodes(finished, state))
    return state


def _form_references(text: str) -> list[tuple[str, int, int]]:
    """(the id, where its value starts and ends in `text`) of each form shortcode of `text` with an id."""
    found = []
    for start, _end, name, attributes in pages.shortcodes(text):
        match = next((match for match in pages.ATTRIBUTE.finditer(attributes[:pages.MAX_ATTRIBUTES])
                      if match.group("name").lower() == "id"), None)
        if match is None:
            continue
        group = next(group for group in ("double", "single", "bare") if match.group(group) is not None)
        value_start, value_end = match.span(pages.ATTRIBUTE.groupindex[group])  # RE2 spans by number
        offset = start + len(name) + 2  # the attributes start after "[", the name and one space
        found.append((match.group(group).strip().lower(), offset + value_start, offset + value_end))
    return found


def item_imported(app, item: WxrItem, new_id: int, run: WxrImport) -> None:
    """Note a post or page core imported whose content names a form, to point it at the form at the end
    (the forms may come later in the file)."""
    references = [reference for reference, _start, _end in _form_references(item.content)]
    if references:
        _run_state(run).items.append((new_id, references))


def rewrite_shortcodes(run: WxrImport, state: _ShortcodeState) -> None:
    """Point `[contact-form-7 id="OLD"]` at the form's id here when the import gave it a new one (its old id
    was taken), and `id="HASH…"` at its new hash when its old hash was taken; ids kept stay as written.
    An item whose shortcodes no longer say what the file says (rewritten by an earlier run of the same
    file, or edited here since) is left alone."""
    request = content_request(run)
    for item_id, in_file in state.items:
        current = run.app.content.get(request, item_id)
        if current is None:
            continue
        text = current["content"]
        references = _form_references(text)
        if [reference for reference, _start, _end in references] != in_file:
            continue
        out, position = [], 0
        for reference, start, end in references:
            new_reference = _new_reference(run, request, reference, state.moved_hashes) if reference else None
            if new_reference is not None:
                out += [text[position:start], new_reference]
                position = end
        if position:
            out.append(text[position:])
            run.app.content.update(request, item_id, content="".join(out), modified_gmt=current["modified_gmt"])


def _new_reference(run: WxrImport, request, reference: str, moved_hashes: dict[str, int]) -> str | None:
    """What a shortcode's id should say now, or None when it names the form as it is (or names none).
    The reference looks a form up by its hash before its id, and so does this."""
    moved = next((form_id for old, form_id in moved_hashes.items() if old.startswith(reference)), None) \
        if store.HASH_PREFIX.fullmatch(reference) else None
    form = store.load(request, moved) if moved is not None else None
    if form is not None:
        return form.hash[:len(reference)]
    if store.by_hash(request, reference) is not None:
        return None
    if reference.isdigit() and len(reference) < 10:
        new_id = run.new_id("post", int(reference))
        if new_id is not None and new_id != int(reference) and store.load(request, new_id) is not None:
            return str(new_id)
    return None


def export_items(app, export: WxrExport) -> Iterable[WxrItem]:
    request = export_request(export)
    items = list(all_items(export, store.POST_TYPE, statuses=store.STATUSES))
    logins = author_logins(export, {item["author"] for item in items})
    for item in items:
        form = store.load(request, item["id"], export.session)
        if form is None:
            continue
        properties = form.properties
        meta = [("_form", properties.get("form", "")),
                ("_mail", php_serialize(properties.get("mail") or props.default_mail())),
                ("_mail_2", php_serialize(properties.get("mail_2") or props.default_mail_2())),
                ("_messages", php_serialize(properties.get("messages") or {})),
                ("_additional_settings", properties.get("additional_settings", "")),
                ("_locale", form.locale), ("_hash", form.hash)]
        yield wxr_item(export, {**item, "stored_status": form.status}, WORDPRESS_TYPE, logins,
                       content=properties.get("form", ""), meta=meta)
