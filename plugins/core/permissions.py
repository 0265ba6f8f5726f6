"""Meta capabilities on posts and terms, mapped to the primitive capabilities roles hold.

`user.can("edit_post", item)` reaches `map_meta_capability` here; the rules are the
reference's (section 2.2): own versus others' items, published, private and trashed
states, revisions checked against their parent, and term caps per taxonomy.
"""

from __future__ import annotations

import functools

from host import hookimpl

POST_META_CAPS = ("edit_post", "read_post", "delete_post", "publish_post")
TERM_META_CAPS = ("edit_term", "delete_term", "assign_term")


def type_caps(app, post_type: str) -> dict[str, str]:
    """Primitive capability names of a post type (`edit_posts`, `edit_pages`, `edit_events` ...)."""
    return dict(_shared_caps(app, post_type))  # a copy: callers may keep or change theirs


def _shared_caps(app, post_type: str) -> dict[str, str]:
    """`type_caps` without the copy, for the checks here, which only read it."""
    registered = app.registry.post_types.get(post_type)
    return _caps_of(registered[0].capability_type if registered else "post", post_type == "attachment")


@functools.lru_cache(maxsize=256)
def _caps_of(base: str, attachment: bool) -> dict[str, str]:
    """The names for capability type `base`, built once: every permission check on an item asks."""
    plural = base + "s"
    caps = {action: f"{action}_{plural}" for action in (
        "edit", "edit_others", "edit_published", "edit_private", "publish", "read_private",
        "delete", "delete_others", "delete_published", "delete_private")}
    caps["create"] = "upload_files" if attachment else caps["edit"]
    caps["read"] = "read"
    return caps


def _is_public(app, status: str) -> bool:
    registered = app.registry.statuses.get(status)
    return bool(registered and registered[0].public)


def _post_caps(app, user, capability: str, item: dict) -> list[str]:
    if item.get("type") == "revision":
        if capability == "delete_post":
            return ["do_not_allow"]
        parent = item.get("_parent")
        return _post_caps(app, user, capability, parent) if parent else ["do_not_allow"]
    caps = _shared_caps(app, item.get("type", "post"))
    status = item.get("status", "draft")
    if status == "trash":
        status = item.get("pre_trash_status") or "draft"
    own = bool(item.get("author")) and item.get("author") == user.id
    if capability == "publish_post":
        return [caps["publish"]]
    if capability == "read_post":
        if status == "publish" or _is_public(app, status) or own:
            return [caps["read"]]
        if status == "private":
            return [caps["read_private"]]
        if status == "inherit":
            parent = item.get("_parent")
            return _post_caps(app, user, "read_post", parent) if parent else [caps["read"]]
        return _post_caps(app, user, "edit_post", item)
    action = "edit" if capability == "edit_post" else "delete"
    if own:
        if status in ("publish", "future"):
            return [caps[f"{action}_published"]]
        return [caps[action]]
    required = [caps[f"{action}_others"]]
    if status in ("publish", "future"):
        required.append(caps[f"{action}_published"])
    elif status == "private":
        required.append(caps[f"{action}_private"])
    return required


@hookimpl
def map_meta_capability(app, user, capability, args):
    if capability in POST_META_CAPS and args and isinstance(args[0], dict):
        return _post_caps(app, user, capability, args[0])
    if capability == "edit_comment" and args and isinstance(args[0], dict):
        # As the reference: editing a comment is editing its post (or editing posts, without one).
        post = args[0].get("_post")
        return _post_caps(app, user, "edit_post", post) if post else ["edit_posts"]
    if capability in TERM_META_CAPS and args:
        return ["edit_posts"] if capability == "assign_term" else ["manage_categories"]
    return None
