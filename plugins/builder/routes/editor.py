"""The editor's own data: favourites, the onboarding checklist, user data, site navigation,
the post picker and local usage events."""

from __future__ import annotations

import datetime
import json

from sqlalchemy import delete, func, insert, select

from host import RestError, RestResponse, Route, invalid_param
from host.auth import users as user_service

from .. import elements as tree
from ..kit import DEFAULT_SETTINGS, load_kit
from ..schemas import (AddNewPostArgs, FavoriteArgs, ListingArgs, PostListArgs, RecentPostsArgs, SendEventArgs,
                       StepIndexArgs, StepWriteArgs, UserDataArgs)
from ..settings import settings_of
from ..store import get_option, get_user_value, set_option, set_user_value
from ..tables import DOCUMENTS, EVENTS, FAVORITES, table
from .common import NAMESPACE, READ, SITE, can_edit_posts, ensure_page_exists, paged

MAX_FAVORITES_PER_TYPE = 200
FAVORITE_TYPES_LIMIT = 20
LISTED_STATUSES = ("publish", "future", "draft", "pending", "private")


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


# --- favorites --------------------------------------------------------------------------------------

def list_favorites(request):
    favorites, params = table(request.app, FAVORITES), request.params
    condition = favorites.c.user_id == request.user.id
    if params.get("search"):
        condition = condition & favorites.c.slug.contains(params["search"], autoescape=True)
    total = request.session.execute(select(func.count()).select_from(favorites).where(condition)).scalar_one()
    ensure_page_exists(request, total)
    rows = request.session.execute(select(favorites).where(condition).order_by(favorites.c.type, favorites.c.slug)
                                   .limit(params["per_page"]).offset((params["page"] - 1) * params["per_page"]))
    return paged(request, [{"type": row.type, "favorite": row.slug} for row in rows], total)


def _favorites_of(request, kind: str) -> list[str]:
    favorites = table(request.app, FAVORITES)
    return [row.slug for row in request.session.execute(
        select(favorites.c.slug).where(favorites.c.user_id == request.user.id, favorites.c.type == kind)
        .order_by(favorites.c.id))]


def add_favorite(request):
    favorites, kind, slug = table(request.app, FAVORITES), request.params["id"], request.params["favorite"]
    if kind == "widgets" and slug not in tree.widget_types(request.app):
        raise invalid_param({"favorite": f"favorite must be a widget type of this site: "
                                        f"{', '.join(tree.widget_types(request.app))}."})
    current = _favorites_of(request, kind)
    if slug not in current:
        if len(current) >= MAX_FAVORITES_PER_TYPE:
            raise RestError("builder_too_many_favorites", f"At most {MAX_FAVORITES_PER_TYPE} favorites per type.", 400)
        types = request.session.execute(select(func.count(func.distinct(favorites.c.type))).where(
            favorites.c.user_id == request.user.id)).scalar_one()
        if not current and types >= FAVORITE_TYPES_LIMIT:
            raise RestError("builder_too_many_favorites", f"At most {FAVORITE_TYPES_LIMIT} types of favorites.", 400)
        request.session.execute(insert(favorites).values(user_id=request.user.id, type=kind, slug=slug,
                                                         created_gmt=_now()))
        current.append(slug)
    return current


def remove_favorite(request):
    favorites, kind, slug = table(request.app, FAVORITES), request.params["id"], request.params["favorite"]
    request.session.execute(delete(favorites).where(favorites.c.user_id == request.user.id, favorites.c.type == kind,
                                                    favorites.c.slug == slug))
    return _favorites_of(request, kind)


# --- checklist ------------------------------------------------------------------------------------

# cta_url: the REST address the editor's checklist opens for each step (an address for the client, not a call).
STEPS = [
    {"id": "add_logo", "title": "Add your school's logo",
     "description": "Upload the crest or logo so every page shows who you are.",
     "cta_text": "Go to media", "cta_url": "/core/v2/media", "learn_more_text": "Logo tips",
     "is_completion_immutable": False},
    {"id": "set_fonts_and_colors", "title": "Set the school colours and fonts",
     "description": "Pick the global colours and fonts every builder page uses.",
     "cta_text": "Edit globals", "cta_url": "/builder/v1/globals", "learn_more_text": "About global styles",
     "is_completion_immutable": True},
    {"id": "create_pages", "title": "Build your first landing page",
     "description": "Admissions, open day or a trip: build a page from sections and widgets.",
     "cta_text": "Add new page", "cta_url": "/builder/v1/site-navigation/add-new-post",
     "learn_more_text": "Building pages", "is_completion_immutable": True},
    {"id": "save_template", "title": "Save a section as a template",
     "description": "Reuse a hero or a contact block on other pages.",
     "cta_text": "Open the template library", "cta_url": "/builder/v1/template-library/templates",
     "learn_more_text": "Templates", "is_completion_immutable": True},
    {"id": "assign_homepage", "title": "Choose the front page",
     "description": "Show a builder page when visitors open the site.",
     "cta_text": "Site settings", "cta_url": "/core/v2/settings", "learn_more_text": "Front page",
     "is_completion_immutable": False},
]
STEP_IDS = [step["id"] for step in STEPS]
FLAGS = ("is_marked_completed", "is_immutable_completed", "is_absolute_completed")
PROGRESS_OPTION = "checklist_progress"
USER_PROGRESS_OPTION = "checklist_user_progress"


def _absolute_completion(request) -> dict[str, bool]:
    """Steps the site itself shows as done, whatever anyone marked."""
    kit = load_kit(request.app, request.session)
    documents = table(request.app, DOCUMENTS)
    counts = {row.type: row.count for row in request.session.execute(
        select(documents.c.type, func.count().label("count")).group_by(documents.c.type))}
    return {"set_fonts_and_colors": kit.settings != DEFAULT_SETTINGS,
            "create_pages": bool(counts.get("page") or counts.get("post")),
            "save_template": bool(counts.get("builder_library"))}


def _steps(request) -> list[dict]:
    stored = get_option(request, PROGRESS_OPTION, {})
    absolute = _absolute_completion(request)
    steps = []
    for position, step in enumerate(STEPS, start=1):
        flags = stored.get(step["id"], {})
        data = {**step, "position": position, "image_src": "", "learn_more_url": "", "promotion_data": None,
                "cta_url": request.base_url + step["cta_url"]}
        data["is_marked_completed"] = bool(flags.get("is_marked_completed"))
        data["is_absolute_completed"] = bool(flags.get("is_absolute_completed") or absolute.get(step["id"]))
        data["is_immutable_completed"] = bool(flags.get("is_immutable_completed")) or \
            (step["is_completion_immutable"] and data["is_absolute_completed"])
        steps.append(data)
    return steps


def list_checklist(request):
    params, steps = request.params, _steps(request)
    if params.get("search"):
        needle = params["search"].lower()
        steps = [step for step in steps if needle in step["title"].lower() or needle in step["description"].lower()]
    ensure_page_exists(request, len(steps))
    start = (params["page"] - 1) * params["per_page"]
    return paged(request, steps[start:start + params["per_page"]], len(steps))


def _step_at(request) -> dict:
    position = int(request.params["id"])
    steps = _steps(request)
    if not 1 <= position <= len(steps):
        raise RestError("rest_invalid_step_id", "There is no checklist step at that position.", 404)
    return steps[position - 1]


def get_step(request):
    return _step_at(request)


def list_steps(request):
    return {"data": _steps(request)}


def update_step(request):
    step_id, params = request.params["id"], request.params
    if step_id not in STEP_IDS:
        raise RestError("rest_invalid_step_id", "There is no checklist step with that id.", 404)
    stored = get_option(request, PROGRESS_OPTION, {})
    flags = dict(stored.get(step_id, {}))
    for flag in FLAGS:
        if params.get(flag) is not None:
            if flag != "is_immutable_completed" and flags.get("is_immutable_completed") and not params[flag]:
                continue  # an immutable completion is not undone
            flags[flag] = bool(params[flag])
    stored[step_id] = flags
    set_option(request, PROGRESS_OPTION, stored)
    return {"data": next(step for step in _steps(request) if step["id"] == step_id)}


def get_user_progress(request):
    progress = get_option(request, USER_PROGRESS_OPTION, {})
    steps = _steps(request)
    return {"data": {"first_closed_checklist_in_editor": progress.get("first_closed_checklist_in_editor", False),
                     "first_closed_at": progress.get("first_closed_at"),
                     "steps": {step["id"]: {flag: step[flag] for flag in FLAGS} for step in steps},
                     "completed": sum(1 for step in steps if step["is_marked_completed"]
                                      or step["is_absolute_completed"]),
                     "total": len(steps)}}


def record_user_progress(request):
    """The editor reports that the checklist was closed; the first time is kept, later reports change nothing."""
    progress = get_option(request, USER_PROGRESS_OPTION, {})
    if not progress.get("first_closed_checklist_in_editor"):
        progress = {"first_closed_checklist_in_editor": True,
                    "first_closed_at": _now().isoformat(timespec="seconds")}
        set_option(request, USER_PROGRESS_OPTION, progress)
    return {"data": "success"}


# --- user data ----------------------------------------------------------------------------------

def current_user_data(request):
    return {"id": request.user.id, "suppressedMessages": get_user_value(request, "suppressedMessages", []),
            "capabilities": {name: request.user.can(name) for name in
                             ("edit_posts", "publish_posts", "edit_pages", "upload_files", "manage_options",
                              "unfiltered_html")}}


def update_user_data(request):
    if request.params.get("suppressedMessages") is not None:
        messages = request.params["suppressedMessages"]
        if any(len(message) > 100 for message in messages):
            raise invalid_param({"suppressedMessages": "Each message name is at most 100 characters."})
        set_user_value(request, "suppressedMessages", list(dict.fromkeys(messages)))
    return current_user_data(request)


# --- site navigation and the post picker ------------------------------------------------------------

def _readable_statuses(request, post_type: str) -> list[str]:
    registered = set(request.app.registry.status_names(post_type))
    return [status for status in LISTED_STATUSES if status in registered]


def _stored_types(request) -> list[str]:
    return [name for name, (post_type, _owner) in request.app.registry.post_types.items()
            if name not in ("revision", "attachment")]


def recent_posts(request):
    params = request.params
    wanted = [name for name in params["post_type"] if name in _stored_types(request)]
    excluded = set(params["post__not_in"])
    found = []
    for post_type in wanted:
        items, _total = request.app.content.query(request, post_type, status=_readable_statuses(request, post_type),
                                                  per_page=min(100, params["posts_per_page"] + len(excluded)),
                                                  orderby="modified", order="desc")
        found.extend(item for item in items if item["id"] not in excluded and request.user.can("edit_post", item))
    found.sort(key=lambda item: (item["modified_gmt"] or datetime.datetime.min, item["id"]), reverse=True)
    return [_navigation_item(request, item) for item in found[:params["posts_per_page"]]]


def _navigation_item(request, item: dict) -> dict:
    author = user_service.get_user(request.app, request.session, item["author"]) if item.get("author") else None
    return {"id": item["id"], "title": item["title"], "post_type": item["type"], "status": item["status"],
            "date_modified": item["modified_gmt"].isoformat(timespec="seconds") if item.get("modified_gmt") else None,
            "user_name": getattr(author, "display_name", "") if author else "",
            "edit_url": f"{request.base_url}/builder/v1/documents"}


NEW_POST_TYPES = {"post": "edit_posts", "page": "edit_pages"}


def add_new_post(request):
    post_type = request.params["post_type"]
    if post_type not in NEW_POST_TYPES or post_type not in request.app.registry.post_types:
        raise invalid_param({"post_type": f"post_type must be one of {', '.join(NEW_POST_TYPES)}."})
    if not request.user.can(NEW_POST_TYPES[post_type]):
        raise RestError("rest_cannot_create", "Sorry, you are not allowed to create items of this type.", 403)
    item = request.app.content.create(request, post_type, title="", status="draft",
                                      meta={"_builder_edit_mode": "builder", "_builder_template_type":
                                            "wp-page" if post_type == "page" else "wp-post"})
    item = request.app.content.update(request, item["id"], title=f"Builder #{item['id']}")
    location = request.app.content.rest_url(request, item)
    return RestResponse.created({"id": item["id"], "title": item["title"], "post_type": post_type,
                                 "edit_url": location}, location)


def _conversion_map(value) -> dict[str, str]:
    if value in (None, "", []):
        return {}
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
            except ValueError:
                raise invalid_param({"post_keys_conversion_map": "post_keys_conversion_map is not valid JSON."}) \
                    from None
            if not isinstance(parsed, dict) or not all(isinstance(v, str) for v in parsed.values()):
                raise invalid_param({"post_keys_conversion_map": "post_keys_conversion_map maps names to names."})
            return parsed
        value = [part for part in text.split(",") if part]
    pairs = {}
    for entry in value:
        source, separator, target = str(entry).partition(":")
        if not separator or not source.strip() or not target.strip():
            raise invalid_param({"post_keys_conversion_map": "Each entry is written `from:to`."})
        pairs[source.strip()] = target.strip()
    return pairs


def list_posts(request):
    params = request.params
    excluded = params["excluded_post_types"] or []
    excluded = set(excluded.split(",") if isinstance(excluded, str) else excluded)
    raw = request.raw_param("post_keys_conversion_map")  # JSON text, before a comma turns it into a list
    conversion = _conversion_map(raw if isinstance(raw, str) and raw.strip().startswith("{")
                                 else params.get("post_keys_conversion_map"))
    limit = params["max_count"]
    found = []
    for post_type in _stored_types(request):
        if post_type in excluded:
            continue
        items, _total = request.app.content.query(request, post_type, status=_readable_statuses(request, post_type),
                                                  search=params["term"], per_page=limit)
        for item in items:
            if request.user.can("edit_post", item) or item["status"] == "publish":
                found.append({"ID": item["id"], "post_title": item["title"], "post_type": item["type"],
                              "post_status": item["status"], "post_name": item["slug"]})
    found = found[:limit]
    if conversion:
        found = [{conversion.get(key, key): value for key, value in entry.items()} for entry in found]
    return found


# --- usage events --------------------------------------------------------------------------------------

def record_event(request):
    limits = settings_of(request.app)
    event_data = request.params["event_data"]
    text = json.dumps(event_data, separators=(",", ":"))
    if len(text.encode("utf-8")) > limits.max_event_bytes or tree._depth(event_data) > 5:
        raise invalid_param({"event_data": f"event_data must be at most {limits.max_event_bytes} bytes of JSON and "
                                          "5 levels deep."})
    name = event_data.get("event") or event_data.get("name") or "event"
    name = str(name)[:100]
    events = table(request.app, EVENTS)
    request.session.execute(insert(events).values(user_id=request.user.id, name=name, data=text, created_gmt=_now()))
    # Bounded: keep the newest `max_events` (never sent anywhere; an administrator pages through them).
    newest = request.session.execute(select(events.c.id).order_by(events.c.id.desc())
                                     .offset(limits.max_events).limit(1)).scalar()
    if newest is not None:
        request.session.execute(delete(events).where(events.c.id <= newest))
    return RestResponse({"success": True, "data": {"recorded": name}}, status=201)


def list_events(request):
    events, params = table(request.app, EVENTS), request.params
    condition = events.c.id > 0
    if params.get("search"):
        condition = events.c.name.contains(params["search"], autoescape=True)
    total = request.session.execute(select(func.count()).select_from(events).where(condition)).scalar_one()
    ensure_page_exists(request, total)
    rows = request.session.execute(select(events).where(condition).order_by(events.c.id.desc())
                                   .limit(params["per_page"]).offset((params["page"] - 1) * params["per_page"]))
    return paged(request, [{"id": row.id, "user": row.user_id, "event": row.name, "event_data": json.loads(row.data),
                            "date_gmt": row.created_gmt.isoformat(timespec="seconds")} for row in rows], total)


def routes() -> list[Route]:
    step_write = r"/checklist/steps/(?P<id>[\w-]+)"
    return [
        Route(NAMESPACE, "/favorites", "GET", list_favorites, args=ListingArgs, capability=READ),
        Route(NAMESPACE, r"/favorites/(?P<id>[\w]+)", "POST", add_favorite, args=FavoriteArgs, capability=READ),
        Route(NAMESPACE, r"/favorites/(?P<id>[\w]+)", "DELETE", remove_favorite, args=FavoriteArgs, capability=READ),
        Route(NAMESPACE, "/checklist", "GET", list_checklist, args=ListingArgs, capability=READ),
        Route(NAMESPACE, "/checklist/steps", "GET", list_steps, capability=SITE),
        Route(NAMESPACE, r"/checklist/steps/(?P<id>[\d]+)", "GET", get_step, args=StepIndexArgs, capability=SITE),
        Route(NAMESPACE, step_write, ("POST", "PUT", "PATCH"), update_step, args=StepWriteArgs, capability=SITE),
        Route(NAMESPACE, "/checklist/user-progress", "GET", get_user_progress, capability=SITE),
        Route(NAMESPACE, "/checklist/user-progress", ("POST", "PUT", "PATCH"), record_user_progress, capability=SITE),
        Route(NAMESPACE, r"/checklist/(?P<id>[\d]+)", "GET", get_step, args=StepIndexArgs, capability=READ),
        Route(NAMESPACE, "/user-data/current-user", "GET", current_user_data, capability=READ),
        Route(NAMESPACE, "/user-data/current-user", "PATCH", update_user_data, args=UserDataArgs, capability=READ),
        Route(NAMESPACE, "/site-navigation/recent-posts", "GET", recent_posts, args=RecentPostsArgs, capability=READ),
        Route(NAMESPACE, "/site-navigation/add-new-post", "POST", add_new_post, args=AddNewPostArgs,
              permission=can_edit_posts),
        Route(NAMESPACE, "/post", "GET", list_posts, args=PostListArgs, capability=READ),
        Route(NAMESPACE, "/send-event", "GET", list_events, args=ListingArgs, capability=SITE),
        Route(NAMESPACE, "/send-event", "POST", record_event, args=SendEventArgs, capability=READ),
    ]
