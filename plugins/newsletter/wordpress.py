"""Sign-up forms to and from a WordPress export: the reference plugin's `mc4wp-form` posts.

The reference keeps a form's markup as the post's content (inputs named by merge tag, EMAIL,
FNAME ...; `_mc4wp_lists[]` checkboxes when visitors choose; a hidden `_mc4wp_action` for an
unsubscribe form), its settings as the PHP-serialized `_mc4wp_settings` (`lists`: the mailing
service's list ids, `required_fields`, `double_optin`, `redirect` ...) and each message's text as
`text_<key>` meta. Here a form is a row of newsletter_forms: its fields are read from the markup,
its lists are this site's lists named by the old list ids (made when missing), and a form is
matched to an earlier import by its title, since forms are not posts here.
"""

from __future__ import annotations

import datetime
import html.parser
import re
from typing import Iterable

import jinja2
from sqlalchemy import func, insert, select, update

from host.wxr import WxrExport, WxrImport, WxrItem, php_serialize, php_unserialize
from host.wxr_content import date_text, item_label

from .messages import DEFAULT_MESSAGES, MAX_MESSAGE_LENGTH, messages_of
from .schemas import MAX_FIELDS, MAX_FORM_LISTS, TAG_PATTERN
from .tables import FORMS, LISTS, table

WORDPRESS_TYPE = "mc4wp-form"
MAX_MARKUP = 100_000
INPUT_TYPES = {"email": "email", "number": "number", "date": "date", "tel": "phone", "hidden": "hidden"}
TAG = re.compile(TAG_PATTERN)
KEPT_SETTINGS = ("lists", "required_fields", "double_optin")
FORM_ID_BASE = 1_500_000_000  # forms are rows here, not posts: their item ids in a file stay clear of posts
TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True,
                               undefined=jinja2.StrictUndefined)


class _FormMarkup(html.parser.HTMLParser):
    """The merge fields, list choice and action a form's markup names (labels: the text of the label around
    or before an input)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.fields: list[dict] = []
        self.skipped: list[str] = []
        self.list_choice = False
        self.action = "subscribe"
        self.label = ""
        self.in_label = False

    def handle_starttag(self, tag: str, attrs) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "label":
            self.in_label, self.label = True, ""
            return
        if tag not in ("input", "select", "textarea"):
            return
        name, kind = values.get("name", "").strip(), values.get("type", "text").lower()
        if name.startswith("_mc4wp_lists"):
            self.list_choice = True
        elif name == "_mc4wp_action" and values.get("value") == "unsubscribe":
            self.action = "unsubscribe"
        elif name.startswith("_") or kind in ("submit", "button", "reset") or not name:
            return
        elif not TAG.match(name.upper()) or kind in ("checkbox", "radio"):
            self.skipped.append(name[:60])
        elif name.upper() not in {field["tag"] for field in self.fields}:
            label = " ".join(self.label.split()).rstrip(":")[:200] or name.title()
            self.fields.append({"tag": name.upper(), "label": label, "type": INPUT_TYPES.get(kind, "text"),
                                "required": "required" in values})

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self.in_label = False

    def handle_data(self, data: str) -> None:
        if self.in_label:
            self.label += data


def form_values(item: WxrItem) -> tuple[dict, list[str], list[str]]:
    """(the form's values, the old list ids, what is left out); ValueError when the form cannot be read."""
    if len(item.content) > MAX_MARKUP:
        raise ValueError(f"its markup is longer than {MAX_MARKUP:,} characters")
    settings = php_unserialize(item.meta_value("_mc4wp_settings") or "a:0:{}")
    settings = {} if settings == [] else settings
    if not isinstance(settings, dict):
        raise ValueError("_mc4wp_settings is not an array")
    markup = _FormMarkup()
    markup.feed(item.content)
    markup.close()
    left_out = [f"field {name!r}" for name in markup.skipped]
    required = {tag.strip().upper() for tag in str(settings.get("required_fields") or "").split(",") if tag.strip()}
    fields = [{**field, "required": field["required"] or field["tag"] in required} for field in markup.fields]
    email = next((field for field in fields if field["tag"] == "EMAIL"), None)
    if email is None:
        raise ValueError("its markup has no EMAIL field")
    fields = [{**email, "type": "email", "required": True}] + [field for field in fields if field["tag"] != "EMAIL"]
    if len(fields) > MAX_FIELDS:
        left_out += [f"field {field['tag']!r}" for field in fields[MAX_FIELDS:]]
        fields = fields[:MAX_FIELDS]
    lists = settings.get("lists") or []
    lists = list(lists.values()) if isinstance(lists, dict) else lists
    old_lists = [str(name).strip()[:200] for name in lists if isinstance(name, (str, int)) and str(name).strip()]
    if len(old_lists) > MAX_FORM_LISTS:
        raise ValueError(f"it names more than {MAX_FORM_LISTS} lists")
    left_out += [f"setting {str(name)[:40]!r}" for name, value in settings.items()
                 if name not in KEPT_SETTINGS and value not in ("", "0", 0, None, [], False)]
    if str(settings.get("double_optin", "1")) == "0":
        left_out.append("setting 'double_optin' = 0 (sign-ups here are always confirmed by mail)")
    messages = {}
    for key, text in item.meta:
        if not key.startswith("text_"):
            continue
        if key[5:] in DEFAULT_MESSAGES and text.strip():
            messages[key[5:]] = text[:MAX_MESSAGE_LENGTH]
        elif key[5:] not in DEFAULT_MESSAGES:
            left_out.append(f"message {key[5:][:40]!r}")
    values = {"title": (item.title or "Sign-up form").strip()[:200], "action": markup.action,
              "list_choice": 1 if markup.list_choice else 0, "fields": fields, "messages": messages_of(messages)}
    return values, list(dict.fromkeys(old_lists)), left_out


def _list_ids(run: WxrImport, names: list[str]) -> list[int]:
    """This site's lists named by the old list ids (made when missing)."""
    lists = table(run.app, LISTS)
    found = []
    for name in names:
        list_id = run.session.execute(select(lists.c.id).where(func.lower(lists.c.name) == name.lower())).scalar()
        if list_id is None:
            list_id = run.session.execute(insert(lists).values(
                name=name, description="A list of the old site's sign-up forms (WordPress import).",
                created=_now())).inserted_primary_key[0]
        found.append(list_id)
    return found


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)


def import_item(app, item: WxrItem, run: WxrImport) -> bool | None:
    if item.post_type != WORDPRESS_TYPE:
        return None
    label = item_label(item)
    if item.status == "trash":
        run.not_imported(label, "the form is in the old site's trash")
        return True
    try:
        values, old_lists, left_out = form_values(item)
    except ValueError as error:
        run.not_imported(label, f"the form cannot be read: {error}")
        return True
    for what in left_out:
        run.not_imported(f"{label} {what}", "sign-up forms here do not keep it")
    values["lists"] = _list_ids(run, old_lists)
    forms = table(app, FORMS)
    row = run.session.execute(select(forms).where(forms.c.title == values["title"]).order_by(forms.c.id)).first()
    if row is None:
        now = _now()
        run.session.execute(insert(forms).values(created=now, modified=now, **values))
        run.count("created")
    elif all(getattr(row, name) == value for name, value in values.items()):
        run.count("unchanged")
    else:
        run.session.execute(update(forms).where(forms.c.id == row.id).values(modified=_now(), **values))
        run.count("updated")
    return True


def export_items(app, export: WxrExport) -> Iterable[WxrItem]:
    forms, lists = table(app, FORMS), table(app, LISTS)
    names = dict(export.session.execute(select(lists.c.id, lists.c.name)).all())
    template = TEMPLATES.get_template("wordpress_form.html")
    for row in export.session.execute(select(forms).order_by(forms.c.id)).all():
        fields = [{**field, "input_type": next((kind for kind, ours in INPUT_TYPES.items() if ours == field["type"]),
                                               "text")} for field in row.fields or []]
        list_names = [names[list_id] for list_id in row.lists or [] if list_id in names]
        markup = template.render(fields=fields, list_choice=bool(row.list_choice), lists=list_names,
                                 action=row.action, button="Unsubscribe" if row.action == "unsubscribe" else "Sign up")
        settings = {"lists": list_names, "double_optin": "1", "required_fields": ",".join(
            field["tag"] for field in row.fields or [] if field.get("required"))}
        meta = [("_mc4wp_settings", php_serialize(settings))]
        meta += [(f"text_{key}", text) for key, text in messages_of(row.messages).items()]
        post_id = FORM_ID_BASE + row.id
        link = f"{export.base_url}/?post_type={WORDPRESS_TYPE}&p={post_id}"
        yield WxrItem(post_id=post_id, post_type=WORDPRESS_TYPE, title=row.title, slug=f"sign-up-form-{row.id}",
                      status="publish", content=markup, excerpt="", date=date_text(row.created),
                      date_gmt=date_text(row.created), modified=date_text(row.modified),
                      modified_gmt=date_text(row.modified), author_login="", parent=0, menu_order=0, password="",
                      is_sticky=False, comment_status="closed", ping_status="closed", guid=link, link=link, meta=meta)
