"""core/v2/settings: the site's settings with WordPress's keys, for users who can manage_options.

Defaults come from `[site]` in sitehost.toml (title, description, url, timezone, front page),
the first administrator's email (`email`, WordPress's admin_email, set when the site was installed)
and WordPress's own defaults; a value written through the API is kept in the
`site_settings` table and wins over the default from then on, in every process. Writing
null forgets the written value, so the default shows again (as WordPress deletes the option).
`url` is the host's site address (`app.site_address`, the base of guids, links in mails and
calendar UIDs): it is read and chosen through the host, which keeps it, not in `site_settings`.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from marshmallow import Schema
from sqlalchemy import delete, select

from host import Route, ParamError, invalid_param
from host.args import JsonSchemaField
from host.auth import users

from .tables import tables

NAMESPACE = "core/v2"
MAX_URL = 2048


def _setting(kind, description: str, **extra) -> JsonSchemaField:
    """A setting: its type may also be null (null resets it to its default)."""
    types = [kind, "null"] if isinstance(kind, str) else [*kind, "null"]
    return JsonSchemaField({"type": types, "description": description, **extra})


class SettingsArgs(Schema):
    """The writable settings (every argument optional); also the item schema."""

    title = _setting("string", "Site title.")
    description = _setting("string", "Site tagline.")
    url = _setting("string", "Site URL.", format="uri")
    email = _setting("string", "This address is used for admin purposes, like new user notification.", format="email")
    timezone = _setting("string", "A city in the same timezone as you.")
    date_format = _setting("string", "A date format for all date strings.")
    time_format = _setting("string", "A time format for all time strings.")
    start_of_week = _setting("integer", "A day number of the week that the week should start on.", minimum=0,
                             maximum=6)
    language = _setting("string", "WordPress locale code.")
    use_smilies = _setting("boolean", "Convert emoticons like :-) and :-P to graphics on display.")
    default_category = _setting("integer", "Default post category.")
    default_post_format = _setting("string", "Default post format.")
    posts_per_page = _setting("integer", "Blog pages show at most.", minimum=1, maximum=100)
    show_on_front = _setting("string", "What to show on the front page", enum=["posts", "page", None])
    page_on_front = _setting("integer", "The ID of the page that should be displayed on the front page", minimum=0)
    page_for_posts = _setting("integer", "The ID of the page that should display the latest posts", minimum=0)
    default_ping_status = _setting("string", "Allow link notifications from other blogs (pingbacks and trackbacks) "
                                   "on new articles.", enum=["open", "closed", None])
    default_comment_status = _setting("string", "Allow people to submit comments on new posts.",
                                      enum=["open", "closed", None])
    # Not among WordPress's REST settings (an option of its Discussion screen); served here so that
    # the admin area and REST clients can change it.
    moderation_notify = _setting("boolean", "Email the site's administrator, and the post's author when they "
                                 "can moderate it, whenever a comment is held for moderation.")
    site_logo = _setting("integer", "Site logo.")
    site_icon = _setting("integer", "Site icon.")


KEYS = tuple(SettingsArgs().fields)
IDENTITY = {"title": "name", "description": "description"}  # setting -> the host's site identity field


def defaults(request) -> dict:
    """Each setting before anything was written: `[site]`, else WordPress's default."""
    site = request.app.settings.site
    return {
        "title": site.get("name", ""), "description": site.get("description", ""),
        "url": request.app.chosen_site_address(request.session) or request.app.site_address(request.session),
        "email": users.first_administrator_email(request.app, request.session),
        "timezone": site.get("timezone_string") or "UTC", "date_format": "F j, Y",
        "time_format": "g:i a", "start_of_week": 1, "language": "en_US", "use_smilies": True,
        "default_category": 1, "default_post_format": "0", "posts_per_page": 10,
        "show_on_front": site.get("show_on_front", "posts"), "page_on_front": int(site.get("page_on_front") or 0),
        "page_for_posts": int(site.get("page_for_posts") or 0), "default_ping_status": "open",
        "default_comment_status": "open", "moderation_notify": True, "site_logo": None, "site_icon": 0,
    }



def _current(request) -> dict:
    table = tables(request.app)["site_settings"]
    written = {key: json.loads(value) for key, value in request.session.execute(select(table.c.key, table.c.value))
               if key != "url"}  # the site address is the host's (a `url` row of older versions is ignored)
    return {key: written.get(key, default) for key, default in defaults(request).items()}


def setting(request, key: str):
    """One setting's current value (written, else its default) without building the others."""
    table = tables(request.app)["site_settings"]
    written = request.session.execute(select(table.c.value).where(table.c.key == key)).scalar()
    return json.loads(written) if written is not None else defaults(request)[key]


def get_settings(request):
    return _current(request)


def update_settings(request):
    table = tables(request.app)["site_settings"]
    sent = {key: request.params.get(key) for key in KEYS if request.has_param(key)}  # null: back to the default
    if "timezone" in sent and sent["timezone"] is not None and not _is_zone(sent["timezone"]):
        raise invalid_param({"timezone": "timezone is not a known time zone."})
    if "url" in sent and sent["url"] is not None and not is_site_url(sent["url"]):
        raise invalid_param({"url": ParamError("rest_invalid_url", "url is not a URL (http:// or https://, then a host name).")})
    if "url" in sent:
        request.app.choose_site_address(request.session, sent.pop("url"))
    for key, value in sent.items():
        request.session.execute(delete(table).where(table.c.key == key))
        if value is not None:
            request.session.execute(table.insert().values(key=key, value=json.dumps(value)))
    identity = {field: sent[key] for key, field in IDENTITY.items() if key in sent}
    if identity:  # the root index's name and description follow the title and tagline, as WordPress's do
        request.app.choose_site_identity(request.session, **identity)
    if sent:
        app = request.app

        def settled():
            app.forget_site_identity()  # also a read of another request between the write and the commit
            app.hook.site_settings_changed(app=app, keys=sorted(sent))
        request.after_commit(settled)
    return _current(request)


def _is_zone(name: str) -> bool:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def is_site_url(value: str) -> bool:
    """`format: uri` of the site's address: an absolute http(s) URL with a host, no spaces or control characters.

    The argument pipeline leaves `uri` unchecked (WordPress cleans such values instead); the site's
    own address goes into every link the site makes, so a bad one is refused here.
    """
    if len(value) > MAX_URL or any(character.isspace() or ord(character) < 32 or ord(character) == 127
                                   for character in value):
        return False
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number in range)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def routes() -> list[Route]:
    return [
        Route(NAMESPACE, "/settings", "GET", get_settings, capability="manage_options", schema=SettingsArgs, title="settings"),
        Route(NAMESPACE, "/settings", ("POST", "PUT", "PATCH"), update_settings, args=SettingsArgs, partial_args=True,
              capability="manage_options", schema=SettingsArgs, title="settings"),
    ]
