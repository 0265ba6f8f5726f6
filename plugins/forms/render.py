"""The form as HTML, with the hidden fields the feedback route expects.

The template's literal HTML is cleaned with nh3 (a form may only hold form markup, never a
script), and each tag becomes its control through the macros of templates/forms_controls.html
(autoescaped). A submission sent without JavaScript is shown in the form again (`Outcome`): the
message, each field's error beside it, and the visitor's values unless the mail went out.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import jinja2
import nh3
from markupsafe import Markup

from host import theme

from . import rules, store, template

PLUGIN_VERSION = "1.0.0"
# What a form template may hold besides the tags: text formatting and form layout.
ALLOWED_TAGS = set(nh3.ALLOWED_TAGS) | {"label", "fieldset", "legend", "span", "div", "p", "br", "small", "strong",
                                          "em", "h2", "h3", "h4", "ul", "ol", "li"}
ALLOWED_ATTRIBUTES = {tag: {"class", "id"} for tag in ALLOWED_TAGS}
ALLOWED_ATTRIBUTES["label"] = {"class", "id", "for"}
PLACEHOLDER_OPEN, PLACEHOLDER_CLOSE = "\ue000", "\ue001"
SCRIPT_PATH = "/static/forms/forms.js"  # the host serves plugins/forms/static/ there
STYLESHEET_PATH = "/static/forms/forms.css"


def unit_tag(form_id: int, container_post: int, counter: int) -> str:
    return f"forms-f{form_id}-p{container_post}-o{counter}"


# The form's class and data-status for each status of a feedback answer, as the reference's client sets them.
STATUS_CLASSES = {"init": "init", "validation_failed": "invalid", "acceptance_missing": "unaccepted", "spam": "spam",
                  "aborted": "aborted", "mail_sent": "sent", "mail_failed": "failed", "error": "failed"}


@dataclass
class Outcome:
    """What a submission without JavaScript came to: shown in the form it was sent from."""

    status: str
    message: str
    invalid: dict[str, str] = field(default_factory=dict)  # field name -> its error message
    values: dict[str, Any] = field(default_factory=dict)  # what the visitor sent, to fill the form again

    @property
    def keeps_values(self) -> bool:
        return self.status != "mail_sent"


def render_form(app, form: store.Form, *, action: str, feedback_url: str, container_post: int = 0, counter: int = 1,
                nonce: str = "", outcome: Outcome | None = None, with_script: bool = False,
                back_link: str = "") -> Markup:
    """The form's HTML: posts to `action` without JavaScript, to `feedback_url` through forms.js."""
    unit = unit_tag(form.id, container_post, counter)
    controls_module = templates(app).get_template("forms_controls.html").module
    state = _ControlState(unit, form.status == "fields-disabled", outcome)
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
        control, extra_hidden = render_tag(app, controls_module, part, state)
        hidden.update(extra_hidden)
        pieces.append(f"{PLACEHOLDER_OPEN}{len(controls)}{PLACEHOLDER_CLOSE}")
        controls.append(control)
    cleaned = nh3.clean("".join(pieces), tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES)
    status = outcome.status if outcome else "init"
    return Markup(templates(app).get_template("forms_form.html").render(
        unit=unit, lang=form.locale.replace("_", "-"), form_id=form.id, action=action, feedback_url=feedback_url,
        label=form.title or "Contact form", status_class=STATUS_CLASSES.get(status, "failed"), hidden=hidden,
        body=Markup(_put_back(cleaned, controls)), message=outcome.message if outcome else "",
        back_link=back_link, with_script=with_script, script_url=SCRIPT_PATH, stylesheet_url=STYLESHEET_PATH))


def addresses(site: str, rest_base: str, form_id: int) -> dict[str, str]:
    """render_form's `action` (the form's page) and `feedback_url` (the route forms.js sends it to)."""
    return {"action": f"{site}/contact-forms/{form_id}",
            "feedback_url": f"{rest_base}/forms/v1/contact-forms/{form_id}/feedback"}


def templates(app) -> jinja2.Environment:
    """The plugin's templates through the site theme: an operator's file of the same name in
    `[site] templates_dir` (forms_form.html, forms_controls.html ...) wins."""
    return theme.environment(app, __package__)


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


class _ControlState:
    """What every control of one rendering shares: its unit tag, whether fields are off, and a submission's outcome."""

    def __init__(self, unit: str, disabled: bool, outcome: Outcome | None):
        self.unit = unit
        self.disabled = disabled
        self.outcome = outcome

    def error(self, name: str) -> tuple[str, str]:
        """(message, id of the message) of a field the submission found invalid, else ("", "")."""
        key = name.replace(".", "_")
        message = self.outcome.invalid.get(key, "") if self.outcome else ""
        return message, f"{self.unit}-ve-{key}" if message else ""

    def sent(self, name: str) -> Any:
        """The value the visitor sent for `name`, when the form shows a refused submission; else None."""
        if self.outcome is None or not self.outcome.keeps_values:
            return None
        return self.outcome.values.get(name)


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


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _chosen(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {item for item in value if isinstance(item, str)}
    return set()


def render_tag(app, controls, tag: template.FormTag, state: _ControlState) -> tuple[str, dict[str, str]]:
    kind = tag.basetype
    disabled = state.disabled
    error, error_id = state.error(tag.name)
    sent = state.sent(tag.name)
    common = {"id": tag.option("id"), "disabled": disabled, "aria-required": "true" if tag.required else None,
              "aria-invalid": ("true" if error else "false") if kind not in ("submit", "hidden") else None,
              "aria-describedby": error_id or None}
    invalid_class = ("forms-not-valid",) if error else ()
    if kind in ("text", "email", "tel", "url", "number", "range", "date"):
        placeholder = tag.values[0] if tag.values and (tag.has_option("placeholder") or tag.has_option("watermark")) \
            else None
        value = _text(sent)
        attributes = {"type": kind, "name": tag.name, "value": _default(tag) if value is None else value,
                      "class": _classes(tag, *invalid_class), **common,
                      "size": None if kind in ("number", "range", "date") else (tag.option("size") or "40"),
                      "maxlength": tag.option("maxlength") or rules.DEFAULT_MAXLENGTH.get(kind),
                      "minlength": tag.option("minlength"), "min": tag.option("min"), "max": tag.option("max"),
                      "step": tag.option("step"), "placeholder": placeholder, "readonly": tag.has_option("readonly"),
                      "autocomplete": tag.option("autocomplete")}
        return str(controls.input(tag.name, attributes, error, error_id)), {}
    if kind == "textarea":
        placeholder = tag.values[0] if tag.values and tag.has_option("placeholder") else None
        value = _text(sent)
        attributes = {"name": tag.name, "cols": tag.option("cols") or "40", "rows": tag.option("rows") or "10",
                      "class": _classes(tag, *invalid_class), **common,
                      "maxlength": tag.option("maxlength") or rules.DEFAULT_MAXLENGTH["textarea"],
                      "minlength": tag.option("minlength"), "placeholder": placeholder,
                      "readonly": tag.has_option("readonly")}
        text = _default(tag) if value is None else value
        return str(controls.textarea(tag.name, attributes, text, error, error_id)), {}
    if kind == "select":
        multiple = tag.has_option("multiple")
        chosen = _chosen(sent) if sent is not None else \
            {tag.values[index - 1] for index in _default_indexes(tag) if 0 < index <= len(tag.values)}
        options = [(value, value in chosen) for value in tag.values]
        attributes = {"name": tag.name + ("[]" if multiple else ""), "class": _classes(tag, *invalid_class), **common,
                      "multiple": multiple}
        blank = tag.has_option("include_blank") or not tag.values
        return str(controls.select(tag.name, attributes, blank, options, error, error_id)), {}
    if kind in ("checkbox", "radio"):
        chosen = _chosen(sent) if sent is not None else \
            {tag.values[index - 1] for index in _default_indexes(tag) if 0 < index <= len(tag.values)}
        name = tag.name + ("[]" if kind == "checkbox" else "")
        items = [{"value": value, "use_label": tag.has_option("use_label_element"),
                  "label_first": tag.has_option("label_first"),
                  "box": {"type": kind, "name": name, "value": value, "disabled": disabled,
                          "checked": value in chosen}} for value in tag.values]
        attributes = {"class": _classes(tag, *invalid_class), "id": tag.option("id"),
                      "aria-invalid": "true" if error else None, "aria-describedby": error_id or None}
        return str(controls.choices(tag.name, attributes, items, error, error_id)), {}
    if kind == "acceptance":
        label = tag.content or (tag.values[0] if tag.values else "")
        attributes = {"type": "checkbox", "name": tag.name, "value": "1", **common,
                      "checked": isinstance(sent, str) and sent not in ("", "0")}
        return str(controls.acceptance(tag.name, attributes, label, tag.has_option("optional"), error, error_id)), {}
    if kind == "file":
        accept = ",".join(f".{kind}" for kind in rules.file_types(tag))
        attributes = {"type": "file", "name": tag.name, "size": "40", "class": _classes(tag, *invalid_class),
                      "accept": accept, **common}
        return str(controls.input(tag.name, attributes, error, error_id)), {}
    if kind == "quiz":
        question, answer_hash = pick_question(app, tag)
        attributes = {"type": "text", "name": tag.name, "size": tag.option("size") or "40",
                      "maxlength": tag.option("maxlength"), "class": _classes(tag, "forms-quiz", *invalid_class),
                      "autocomplete": "off", "aria-required": "true", "aria-invalid": "true" if error else "false",
                      "aria-describedby": error_id or None, "disabled": disabled}
        return str(controls.quiz(tag.name, question, attributes, error, error_id)), \
            {f"_forms_quiz_answer_{tag.name}": answer_hash}
    if kind == "hidden":
        return str(controls.bare_input({"type": "hidden", "name": tag.name, "value": _default(tag)})), {}
    if kind == "submit":
        label = tag.values[0] if tag.values else "Send"
        attributes = {"type": "submit", "value": label, "class": _classes(tag, "has-spinner"), "id": tag.option("id"),
                      "disabled": disabled}
        return str(controls.bare_input(attributes)), {}
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
