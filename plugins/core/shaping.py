"""Items as the API shows them: fields per context, rendering, links, visibility checks."""

from __future__ import annotations

from typing import Any

from host.stash import StashKey

from . import dates, permalinks, render
from .permissions import type_caps
from .store.rendered import keep_rendering
from .store import get_item, sanitize_slug

POST_FIELD_ORDER = (
    "id", "date", "date_gmt", "guid", "modified", "modified_gmt", "password", "slug", "status", "type", "link",
    "title", "content", "excerpt", "author", "featured_media", "parent", "menu_order", "comment_status",
    "ping_status", "sticky", "template", "format", "meta", "categories", "tags", "permalink_template",
    "generated_slug", "class_list",
)
EMBED_FIELDS = {"id", "date", "slug", "type", "link", "title", "excerpt", "author", "featured_media"}
EDIT_ONLY = {"password", "permalink_template", "generated_slug"}
TAXONOMY_FIELDS = {"category": "categories", "post_tag": "tags"}
TAXONOMY_CLASS = {"category": "category", "post_tag": "tag"}


def core_url(request, path: str) -> str:
    return f"{request.base_url}/core/v2/{path}"


def site_url(request) -> str:
    prefix = request.app.settings.rest_prefix
    return request.base_url[: -len(prefix)] if prefix and request.base_url.endswith(prefix) else request.base_url


def guid_base(request) -> str:
    """The site URL a new guid starts with: the site's address (a guid is kept for ever), never this request's Host."""
    return request.app.site_address(request.session)


def permalink(request, item: dict, site: str | None = None) -> str:
    """Plain permalinks (a fresh site's default): ?p=ID, ?page_id=ID, ?attachment_id=ID; a published item
    of a type registered with a `rewrite` segment links to `/<rewrite>/<slug>/`, which its plugin serves."""
    site = site or site_url(request)
    registered = request.app.registry.post_types.get(item["type"])
    rewrite = registered[0].rewrite if registered else ""
    if rewrite and item.get("slug") and public_status(request.app, item.get("status", "")):
        return f"{site}/{rewrite}/{item['slug']}/"
    permalink_structure = permalinks.structure(request.app)
    if permalink_structure and item["type"] in ("post", "page") and public_status(request.app, item.get("status", "")):
        if "date" not in item or "slug" not in item:  # a partial row (a comment's post): read the whole item

            item = get_item(request.app, request.session, int(item["id"]), item["type"]) or item
        if item["type"] == "post":
            return site + permalinks.post_path(request.app, request.session, permalink_structure, item)
        return site + permalinks.page_path(request.app, request.session, item)
    if item["type"] == "page":
        return f"{site}/?page_id={item['id']}"
    if item["type"] == "post":
        return f"{site}/?p={item['id']}"
    if item["type"] == "attachment":
        pretty = attachment_path(request, permalink_structure, item) if permalink_structure else ""
        return site + pretty if pretty else f"{site}/?attachment_id={item['id']}"
    return f"{site}/?post_type={item['type']}&p={item['id']}"


def attachment_path(request, permalink_structure: str, item: dict) -> str:
    """The pretty path of an attachment anyone may read, "" when it keeps its plain link: WordPress forces
    that for an attachment of an unpublished item (a draft's or a private post's files stay unnamed).
    Attached to another type than a post or a page (which core shows), it keeps the plain link too."""
    if item.get("status") != "inherit" or not item.get("slug"):
        return ""
    parent = None
    if item.get("parent"):
        parent = get_item(request.app, request.session, int(item["parent"]))
        if parent is None or parent["id"] == item["id"] or parent["type"] not in ("post", "page") \
                or not public_status(request.app, parent["status"]):
            return ""
    return permalinks.attachment_path(request.app, request.session, permalink_structure, item, parent)


def permalink_template(request, item: dict, link: str) -> str:
    """The link with the slug left open (`%postname%`, `%pagename%`) under a pretty structure, else the link."""
    permalink_structure = permalinks.structure(request.app)
    if not permalink_structure or item["type"] not in ("post", "page"):
        return link
    if item["type"] == "post":
        return site_url(request) + permalinks.post_template(request.app, request.session, permalink_structure, item)
    path = permalinks.page_path(request.app, request.session, {**item, "slug": "%pagename%"})
    return site_url(request) + path


def local_and_gmt(request, local, gmt):
    """A floating date (GMT unset) shows a GMT value computed from the local one."""
    if gmt is None and local is not None:
        gmt = dates.local_to_utc(local, request.app.timezone())
    return dates.fmt(local), dates.fmt(gmt)


# --- visibility ------------------------------------------------------------------------------

def public_status(app, status: str) -> bool:
    registered = app.registry.statuses.get(status)
    return status == "publish" or bool(registered and registered[0].public)


def can_read(request, item: dict) -> bool:
    """The single-item read check of reference 4.1 (publish, public status, read_post, inherit)."""
    return user_can_read(request.app, request.user, item)


def readable_by_anyone(app, item: dict) -> bool:
    """Published (or another public status), or attached to nothing or to something that is."""
    status = item["status"]
    if public_status(app, status):
        return True
    if status == "inherit":
        parent = item.get("_parent")
        return not parent or public_status(app, parent["status"])
    return False


def user_can_read(app, user, item: dict) -> bool:
    if readable_by_anyone(app, item):
        return True
    if item["status"] == "inherit":
        return user.can("read_post", item["_parent"])
    return user.can("read_post", item)


def text_gated(app, post_type: str) -> bool:
    """Whether the type's plugin decides who reads its items' text (PostType.text_access)."""
    registered = app.registry.post_types.get(post_type)
    return bool(registered and registered[0].text_access)


def text_withheld(request, item: dict, context: str) -> bool:
    """Whether the item comes without its text for this caller (its type's `text_access` said no).
    The edit context has passed `edit_post` already; so have the editors here."""
    registered = request.app.registry.post_types.get(item["type"])
    access = registered[0].text_access if registered else None
    if access is None or context == "edit" or request.user.can("edit_post", item):
        return False
    return not access(request, item)


def needs_password(request, item: dict, password: str | None, context: str) -> bool:
    """Whether content and excerpt must be blanked for this caller."""
    if not item.get("password"):
        return False
    if context == "edit" and request.user.can("edit_post", item):
        return False
    return password != item["password"]


# --- posts, pages and other types ------------------------------------------------------------

def prepare_post(request, item: dict, context: str, password: str | None = None,
                 excerpt_length: int | None = None) -> dict[str, Any]:
    """The item in `context` (view, embed, edit) with `_links`."""
    app = request.app
    post_type = item["type"]
    registered = app.registry.post_types.get(post_type)
    hierarchical = bool(registered and registered[0].hierarchical)
    is_post = post_type == "post"
    protected = needs_password(request, item, password, context)
    date, date_gmt = local_and_gmt(request, item["date"], item["date_gmt"])
    modified, modified_gmt = local_and_gmt(request, item["modified"], item["modified_gmt"])
    link = permalink(request, item)
    withheld = text_withheld(request, item, context)
    if protected or withheld:
        content_html = excerpt_html = ""
    else:
        content_html, excerpt_html, to_store = render.render_item(app, item, excerpt_length)
        if to_store is not None:
            keep_rendering(request, item["id"], to_store)
    data: dict[str, Any] = {
        "id": item["id"], "date": date, "date_gmt": date_gmt,
        "guid": {"rendered": item["guid"], "raw": item["guid"]},
        "modified": modified, "modified_gmt": modified_gmt, "password": item["password"],
        "slug": item["slug"], "status": item["status"], "type": post_type, "link": link,
        "title": {"raw": item["title"], "rendered": render.render_title(item["title"])},
        "content": {"raw": item["content"], "rendered": content_html,
                    "protected": bool(item["password"]), "block_version": render.block_version(item["content"])},
        "excerpt": {"raw": item["excerpt"], "rendered": excerpt_html, "protected": bool(item["password"])},
        "author": item["author"], "featured_media": item["featured_media"],
    }
    if hierarchical:
        data["parent"] = item["parent"]
        data["menu_order"] = item["menu_order"]
    data["comment_status"] = item["comment_status"]
    data["ping_status"] = item["ping_status"]
    if is_post:
        data["sticky"] = bool(item["sticky"])
    data["template"] = item["template"]
    if is_post:
        data["format"] = item["format"] or "standard"
    shown = app.registry.meta_keys_in_context(item["type"], context)
    data["meta"] = {key: value for key, value in (item.get("meta") or {}).items() if key in shown}
    for taxonomy, pairs in (item.get("terms") or {}).items():
        data[TAXONOMY_FIELDS.get(taxonomy, taxonomy)] = [term_id for term_id, _slug in pairs]
    if context == "edit":  # edit-only fields: not worth computing for the views that drop them
        data["permalink_template"] = permalink_template(request, item, link)
        data["generated_slug"] = generated_slug(item)
    data["class_list"] = class_list(item, protected, is_post)
    data = _in_context(data, context)
    if withheld:  # the item, not its text: no content, no excerpt made from it, no meta (a lesson's video)
        for name in ("content", "excerpt", "meta"):
            data.pop(name, None)
    data["_links"] = post_links(request, item, context)
    return data


def generated_slug(item: dict) -> str:
    return sanitize_slug(item["title"]) or str(item["id"])


def class_list(item: dict, protected: bool, is_post: bool) -> list[str]:
    classes = [f"post-{item['id']}", item["type"], f"type-{item['type']}", f"status-{item['status']}"]
    if is_post:
        classes.append(f"format-{item['format'] or 'standard'}")
    if item.get("password"):
        classes.append("post-password-required" if protected else "post-password-protected")
    if item.get("featured_media"):
        classes.append("has-post-thumbnail")
    classes.append("hentry")
    for taxonomy, pairs in (item.get("terms") or {}).items():
        prefix = TAXONOMY_CLASS.get(taxonomy, taxonomy)
        classes.extend(f"{prefix}-{slug}" for _term_id, slug in pairs)
    return classes


def _in_context(data: dict, context: str) -> dict:
    if context == "edit":
        return data
    if context == "embed":
        result = {key: value for key, value in data.items() if key in EMBED_FIELDS}
        result["title"] = {"rendered": data["title"]["rendered"]}
        result["excerpt"] = {"rendered": data["excerpt"]["rendered"], "protected": data["excerpt"]["protected"]}
        return result
    result = {key: value for key, value in data.items() if key not in EDIT_ONLY}
    result["guid"] = {"rendered": data["guid"]["rendered"]}
    result["title"] = {"rendered": data["title"]["rendered"]}
    result["content"] = {"rendered": data["content"]["rendered"], "protected": data["content"]["protected"]}
    result["excerpt"] = {"rendered": data["excerpt"]["rendered"], "protected": data["excerpt"]["protected"]}
    return result


def rest_base(app, post_type: str) -> str:
    registered = app.registry.post_types.get(post_type)
    if post_type == "attachment":
        return "media"
    return (registered[0].rest_base if registered and registered[0].rest_base else post_type)


ANONYMOUS_HINTS = StashKey[dict]("core.anonymous_hints")


def post_hints(request, item: dict, self_url: str) -> dict | None:
    """targetHints of the item's self link: its route's permission checks, the item handed over.

    Published items without a password answer the same for every item of one type, status
    and ownership, so a list page asks the checks once per such combination, not per item.
    """
    shared = public_status(request.app, item["status"]) and not item.get("password") and item["type"] != "attachment"
    key = (item["type"], item["status"], bool(item["author"]) and item["author"] == request.user.id)
    # Anonymous callers hold no capability, so their answer for such items is the same in every
    # request: kept per app (a few entries: types x public statuses), the list's hot path.
    memo = (request.app.stash.setdefault_by(ANONYMOUS_HINTS, dict) if not request.user.is_authenticated
            else request.state.setdefault("core_hints", {}))
    if shared and key in memo:
        return memo[key]
    hints = request.app.rest.target_hints(request, self_url, prime={"core_items": {(item["type"], item["id"]): item}})
    if shared:
        memo[key] = hints
    return hints


def post_links(request, item: dict, context: str) -> dict:
    app = request.app
    post_type = item["type"]
    base = rest_base(app, post_type)
    self_url = core_url(request, f"{base}/{item['id']}")
    hints = post_hints(request, item, self_url)
    links: dict[str, list] = {
        "self": [{"href": self_url, "targetHints": hints} if hints else {"href": self_url}],
        "collection": [{"href": core_url(request, base)}],
        "about": [{"href": core_url(request, f"types/{post_type}")}],
    }
    if item["author"]:
        links["author"] = [{"embeddable": True, "href": core_url(request, f"users/{item['author']}")}]
    if post_type != "attachment":
        links["replies"] = [{"embeddable": True, "href": core_url(request, f"comments?post={item['id']}")}]
        count = item.get("revision_count", 0)
        links["version-history"] = [{"count": count, "href": core_url(request, f"{base}/{item['id']}/revisions")}]
        if count and item.get("latest_revision_id"):
            latest = item["latest_revision_id"]
            links["predecessor-version"] = [{"id": latest,
                                             "href": core_url(request, f"{base}/{item['id']}/revisions/{latest}")}]
    registered = app.registry.post_types.get(post_type)
    if registered and registered[0].hierarchical and item.get("parent"):
        links["up"] = [{"embeddable": True, "href": core_url(request, f"{base}/{item['parent']}")}]
    if item.get("featured_media"):
        links["https://api.w.org/featuredmedia"] = [
            {"embeddable": True, "href": core_url(request, f"media/{item['featured_media']}")}]
    if post_type != "attachment":
        links["https://api.w.org/attachment"] = [{"href": core_url(request, f"media?parent={item['id']}")}]
    else:
        if item.get("parent"):
            parent_base = rest_base(app, item.get("parent_type") or "post")
            links["https://api.w.org/attached-to"] = [
                {"embeddable": True, "post_type": item.get("parent_type") or "post",
                 "id": item["parent"], "href": core_url(request, f"{parent_base}/{item['parent']}")}]
    term_links = []
    for taxonomy in (item.get("terms") or {}):
        tax_base = {"category": "categories", "post_tag": "tags"}.get(taxonomy)
        registered_tax = app.registry.taxonomies.get(taxonomy)
        tax_base = tax_base or (registered_tax[0].rest_base if registered_tax else taxonomy)
        term_links.append({"taxonomy": taxonomy, "embeddable": True,
                           "href": core_url(request, f"{tax_base}?post={item['id']}")})
    if term_links:
        links["https://api.w.org/term"] = term_links
    if context == "edit":
        links.update(action_links(request, item, self_url))
    return links


def action_links(request, item: dict, self_url: str) -> dict:
    user = request.user
    caps = type_caps(request.app, item["type"])
    links = {}
    entry = [{"href": self_url}]
    if item["type"] != "attachment" and user.can(caps["publish"]):
        links["https://api.w.org/action-publish"] = entry
    if user.can("unfiltered_html"):
        links["https://api.w.org/action-unfiltered-html"] = entry
    if item["type"] == "post" and user.can(caps["edit_others"]) and user.can(caps["publish"]):
        links["https://api.w.org/action-sticky"] = entry
    if user.can(caps["edit_others"]):
        links["https://api.w.org/action-assign-author"] = entry
    for taxonomy in (item.get("terms") or {}):
        name = {"category": "categories", "post_tag": "tags"}.get(taxonomy, taxonomy)
        create_cap = "manage_categories" if taxonomy == "category" else "edit_posts"
        if user.can(create_cap):
            links[f"https://api.w.org/action-create-{name}"] = entry
        if user.can("edit_posts"):
            links[f"https://api.w.org/action-assign-{name}"] = entry
    return links


def deleted_answer(previous: dict) -> dict:
    """A permanent delete's answer: `previous` is the item's data without its links, as WordPress
    answers with the prepared response's `get_data()` (the item is gone: its links lead nowhere)."""
    return {"deleted": True, "previous": {key: value for key, value in previous.items() if key != "_links"}}
