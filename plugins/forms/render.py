"""The form as HTML, with the hidden fields the feedback route expects.

The template's literal HTML is cleaned with nh3 (a form may only hold form markup, never a
script), and each tag becomes its control. Every value written into the page is escaped.
"""

from __future__ import annotations

import html
import secrets
from typing import Any

import nh3

from . import rules, store, template

PLUGIN_VERSION = "1.0.0"
# What a form template may hold besides the tags: text formatting and form layout.
ALLOWED_TAGS = set(nh3.ALLOWED_TAGS) | {"label", "fieldset", "legend", "span", "div", "p", "br", "small", "strong",
                                          "em", "h2", "h3", "h4", "ul", "ol", "li"}
ALLOWED_ATTRIBUTES = {tag: {"class", "id"} for tag in ALLOWED_TAGS}
ALLOWED_ATTRIBUTES["label"] = {"class", "id", "for"}
PLACEHOLDER_OPEN, PLACEHOLDER_CLOSE = "\ue000", "\ue001"


def unit_tag(form_id: int, container_post: int, counter: int) -> str:
    return f"forms-f{form_id}-p{container_post}-o{counter}"


def render_form(app, form: store.Form, rest_base: str, container_post: int = 0, counter: int = 1,
                nonce: str = "") -> str:
    unit = unit_tag(form.id, container_post, counter)
    disabled = form.status == "fields-disabled"
    controls: list[str] = []
    hidden: dict[str, str] = {
        "_forms": str(form.id), "_forms_version": PLUGIN_VERSION, "_forms_locale": form.locale,
        "_forms_unit_tag": unit, "_forms_container_post": str(container_post), "_forms_posted_data_hash": "",
    }
    if nonce:
        hidden["_forms_nonce"] = nonce
    pieces: list[str] = []
    for part in form.parsed.parts:
        if isinstance(part, str):
            pieces.append(part.replace(PLACEHOLDER_OPEN, "").replace(PLACEHOLDER_CLOSE, ""))
            continue
        control, extra_hidden = render_tag(app, form, part, disabled)
        hidden.update(extra_hidden)
        pieces.append(f"{PLACEHOLDER_OPEN}{len(controls)}{PLACEHOLDER_CLOSE}")
        controls.append(control)
    cleaned = nh3.clean("".join(pieces), tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES)
    body = _put_back(cleaned, controls)
    fields = "".join(f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">'
                     for name, value in hidden.items())
    action = f"{rest_base}/forms/v1/contact-forms/{form.id}/feedback"
    lang = form.locale.replace("_", "-")
    return (f'<div class="forms" id="{unit}" lang="{html.escape(lang)}" dir="ltr" data-forms-id="{form.id}">'
            f'<form action="{html.escape(action)}" method="post" class="forms-form init" '
            f'aria-label="{html.escape(form.title or "Contact form")}" enctype="multipart/form-data" novalidate '
            f'data-status="init"><fieldset class="hidden-fields-container">{fields}</fieldset>{body}'
            f'<div class="forms-response-output" aria-hidden="true"></div></form></div>')


def _put_back(cleaned: str, controls: list[str]) -> str:
    out: list[str] = []
    position = 0
    while True:
        start = cleaned.find(PLACEHOLDER_OPEN, position)
        if start == -1:
            out.append(cleaned[position:])
            return "".join(out)
        end = cleaned.find(PLACEHOLDER_CLOSE, start)
        out.append(cleaned[position:start])
        number = cleaned[start + 1:end]
        out.append(controls[int(number)] if number.isdigit() and int(number) < len(controls) else "")
        position = end + 1


def _attributes(values: dict[str, Any]) -> str:
    parts = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        if value is True:
            parts.append(f" {name}")
        else:
            parts.append(f' {name}="{html.escape(str(value))}"')
    return "".join(parts)


def _classes(tag: template.FormTag, *extra: str) -> str:
    names = ["forms-form-control", f"forms-{tag.basetype}", *extra]
    if tag.required:
        names.append("forms-validates-as-required")
    if tag.option("class"):
        names.append(tag.option("class"))
    return " ".join(names)


def _default(tag: template.FormTag) -> str:
    if tag.has_option("placeholder") or tag.has_option("watermark"):
        return ""
    if tag.basetype == "textarea" and tag.content:
        return tag.content
    return tag.values[0] if tag.values else ""


def _wrap(tag: template.FormTag, inner: str) -> str:
    return f'<span class="forms-form-control-wrap" data-name="{html.escape(tag.name)}">{inner}</span>'


def render_tag(app, form: store.Form, tag: template.FormTag, disabled: bool) -> tuple[str, dict[str, str]]:
    kind = tag.basetype
    common = {"id": tag.option("id"), "disabled": disabled, "aria-required": "true" if tag.required else None,
              "aria-invalid": "false" if kind not in ("submit", "hidden") else None}
    if kind in ("text", "email", "tel", "url", "number", "range", "date"):
        placeholder = tag.values[0] if tag.values and (tag.has_option("placeholder") or tag.has_option("watermark")) \
            else None
        attributes = {"type": kind, "name": tag.name, "value": _default(tag), "class": _classes(tag), **common,
                      "size": None if kind in ("number", "range", "date") else (tag.option("size") or "40"),
                      "maxlength": tag.option("maxlength") or rules.DEFAULT_MAXLENGTH.get(kind),
                      "minlength": tag.option("minlength"), "min": tag.option("min"), "max": tag.option("max"),
                      "step": tag.option("step"), "placeholder": placeholder, "readonly": tag.has_option("readonly"),
                      "autocomplete": tag.option("autocomplete")}
        return _wrap(tag, f"<input{_attributes(attributes)}>"), {}
    if kind == "textarea":
        placeholder = tag.values[0] if tag.values and tag.has_option("placeholder") else None
        attributes = {"name": tag.name, "cols": tag.option("cols") or "40", "rows": tag.option("rows") or "10",
                      "class": _classes(tag), **common,
                      "maxlength": tag.option("maxlength") or rules.DEFAULT_MAXLENGTH["textarea"],
                      "minlength": tag.option("minlength"), "placeholder": placeholder,
                      "readonly": tag.has_option("readonly")}
        return _wrap(tag, f"<textarea{_attributes(attributes)}>{html.escape(_default(tag))}</textarea>"), {}
    if kind == "select":
        multiple = tag.has_option("multiple")
        options = []
        if tag.has_option("include_blank") or not tag.values:
            options.append('<option value="">&#8212;Please choose an option&#8212;</option>')
        chosen = _default_indexes(tag)
        for index, value in enumerate(tag.values, start=1):
            selected = " selected" if index in chosen else ""
            options.append(f'<option value="{html.escape(value)}"{selected}>{html.escape(value)}</option>')
        attributes = {"name": tag.name + ("[]" if multiple else ""), "class": _classes(tag), **common,
                      "multiple": multiple}
        return _wrap(tag, f"<select{_attributes(attributes)}>{''.join(options)}</select>"), {}
    if kind in ("checkbox", "radio"):
        chosen = _default_indexes(tag)
        items = []
        for index, value in enumerate(tag.values, start=1):
            name = tag.name + ("[]" if kind == "checkbox" else "")
            box = (f'<input{_attributes({"type": kind, "name": name, "value": value, "disabled": disabled})}'
                   f'{" checked" if index in chosen else ""}>')
            label = f'<span class="forms-list-item-label">{html.escape(value)}</span>'
            inner = f"{label}{box}" if tag.has_option("label_first") else f"{box}{label}"
            if tag.has_option("use_label_element"):
                inner = f"<label>{inner}</label>"
            items.append(f'<span class="forms-list-item">{inner}</span>')
        attributes = {"class": _classes(tag), "id": tag.option("id")}
        return _wrap(tag, f"<span{_attributes(attributes)}>{''.join(items)}</span>"), {}
    if kind == "acceptance":
        label = tag.content or (tag.values[0] if tag.values else "")
        box = f'<input{_attributes({"type": "checkbox", "name": tag.name, "value": "1", **common})}>'
        optional = " optional" if tag.has_option("optional") else ""
        inner = (f'<span class="forms-list-item"><label>{box}<span class="forms-list-item-label">'
                 f'{html.escape(label)}</span></label></span>')
        return _wrap(tag, f'<span class="forms-form-control forms-acceptance{optional}">{inner}</span>'), {}
    if kind == "file":
        accept = ",".join(f".{kind}" for kind in rules.file_types(tag))
        attributes = {"type": "file", "name": tag.name, "size": "40", "class": _classes(tag), "accept": accept,
                      **common}
        return _wrap(tag, f"<input{_attributes(attributes)}>"), {}
    if kind == "quiz":
        question, answer_hash = pick_question(app, tag)
        attributes = {"type": "text", "name": tag.name, "size": tag.option("size") or "40",
                      "maxlength": tag.option("maxlength"), "class": _classes(tag, "forms-quiz"),
                      "autocomplete": "off", "aria-required": "true", "aria-invalid": "false", "disabled": disabled}
        control = (f'<label><span class="forms-quiz-label">{html.escape(question)}</span> '
                   f"<input{_attributes(attributes)}></label>")
        return _wrap(tag, control), {f"_forms_quiz_answer_{tag.name}": answer_hash}
    if kind == "hidden":
        return f'<input{_attributes({"type": "hidden", "name": tag.name, "value": _default(tag)})}>', {}
    if kind == "submit":
        label = tag.values[0] if tag.values else "Send"
        attributes = {"type": "submit", "value": label, "class": _classes(tag, "has-spinner"), "id": tag.option("id"),
                      "disabled": disabled}
        return f"<input{_attributes(attributes)}>", {}
    return "", {}


def _default_indexes(tag: template.FormTag) -> set[int]:
    option = tag.option("default") or ""
    return {int(part) for part in option.split("_") if part.isdigit()}


def pick_question(app, tag: template.FormTag) -> tuple[str, str]:
    """A random (question, signed answer) of a quiz tag."""
    pairs = tag.pipes or [["", ""]]
    question, answer = pairs[secrets.randbelow(len(pairs))]
    return question, store.quiz_hash(app, answer)


def refill(app, form: store.Form) -> dict[str, Any]:
    quiz = {tag.name: list(pick_question(app, tag)) for tag in form.parsed.tags if tag.basetype == "quiz"}
    return {"quiz": quiz} if quiz else {}
