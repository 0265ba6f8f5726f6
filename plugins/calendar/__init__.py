"""calendar: events, venues, organizers, event categories and tags at cal/events/v1, in real time zones.

Events, venues and organizers are post types of the content store (app.content), so they
have authors, statuses, trash, revisions, search and core/v2 routes; the event fields that
are not post fields live in the plugin's `cal_events` table (see tables.py).
"""

from __future__ import annotations

from host import MetaKey, Namespace, PluginInfo, PostType, Status, Taxonomy, hookimpl

from . import keys, settings, tables
from .cli import calendar_group
from .state import ensure_row
from .names import (CATEGORY, EVENT, IGNORED, IMPORT, IMPORT_STATUSES, NAMESPACE, ORGANIZER, ORGANIZER_META, REWRITES, TAG,
                    TAXONOMY_BASES, VENUE, VENUE_META)
from .abilities import ABILITIES

PLUGIN = PluginInfo(name="calendar", version="0.1.0", requires=("core",), settings=settings.CalendarSettingsSchema,
                    description="Events, venues, organizers, event categories and tags (cal/events/v1)")


@hookimpl
def register_tables(metadata):
    tables.define_tables(metadata)


@hookimpl
def register_namespaces(app):
    if not settings.settings_of(app).enabled:
        return []
    return [Namespace(NAMESPACE, description="Events calendar: events, venues, organizers, categories and tags"),
            Namespace("calx/v1", description="Events calendar: events, venues and organizers as core-style entities"),
            Namespace("cal/event-aggregator/v1", description="Events calendar: import services report batches and "
                                                            "states"),
            Namespace("calx/v2/onboarding", description="Events calendar: the administrator's setup wizard"),
            Namespace("cal/views/v2", description="Calendar views (month, list, day) rendered as HTML")]


@hookimpl
def register_statuses():
    labels = {"cal-ea-success": "Imported", "cal-ea-failed": "Failed", "cal-ea-schedule": "Scheduled",
              "cal-ea-pending": "Pending", "cal-ea-draft": "Draft"}
    return [*(Status(name, labels[name], internal=True, post_types=(IMPORT,)) for name in IMPORT_STATUSES),
            Status(IGNORED, "Ignored", internal=True, post_types=(EVENT,))]


@hookimpl
def register_post_types():
    supports = ("title", "editor", "author", "excerpt", "revisions", "thumbnail")
    return [
        PostType(EVENT, "Events", rest_base="cal_events", taxonomies=(CATEGORY, TAG), supports=supports,
                 rewrite=REWRITES[EVENT]),
        PostType(VENUE, "Venues", rest_base="cal_venues", supports=supports, rewrite=REWRITES[VENUE]),
        PostType(ORGANIZER, "Organizers", rest_base="cal_organizers", supports=supports, rewrite=REWRITES[ORGANIZER]),
        # Import records (the calendar's import fills them); registered now so the cal-ea-* statuses have their type.
        PostType(IMPORT, "Event imports", public=False, supports=("title",)),
    ]


@hookimpl
def register_taxonomies():
    return [Taxonomy(CATEGORY, "Event categories", rest_base=TAXONOMY_BASES[CATEGORY], hierarchical=True,
                     object_types=(EVENT,), rewrite=REWRITES[CATEGORY]),
            Taxonomy(TAG, "Event tags", rest_base=TAXONOMY_BASES[TAG], object_types=(EVENT,), rewrite=REWRITES[TAG])]


@hookimpl
def register_meta():
    keys = [MetaKey(VENUE, key, {"type": "string", "default": ""}) for key in VENUE_META]
    keys += [MetaKey(VENUE, flag, {"type": "boolean", "default": True}) for flag in ("show_map", "show_map_link")]
    keys += [MetaKey(VENUE, key, {"type": ["number", "null"], "default": None}) for key in ("geo_lat", "geo_lng")]
    keys += [MetaKey(ORGANIZER, key, {"type": "string", "default": ""}) for key in ORGANIZER_META]
    return keys


@hookimpl
def register_abilities():
    return ABILITIES


@hookimpl
def register_routes(app):
    if not settings.settings_of(app).enabled:
        return []
    from . import aggregator, calx, ical, occurrences, onboarding
    from .routes import _with_statuses, routes
    from .view_routes import routes as view_routes

    return [*routes(app), *calx.routes(app, _with_statuses), *aggregator.routes(), *onboarding.routes(),
            *view_routes(app), *ical.routes(app), *occurrences.routes(app)]


@hookimpl
def register_commands(cli):
    cli.add_command(calendar_group)


@hookimpl
def register_admin_pages(app):
    if not settings.settings_of(app).enabled:
        return []
    from .admin import admin_pages

    return admin_pages()


@hookimpl
def register_pages(app):
    if not settings.settings_of(app).enabled:
        return []
    from . import ical, public, views

    return [*views.pages(), *ical.pages(), *public.pages()]


@hookimpl
def site_menu_entries(app, request):
    """"Events" in the site menu, to /events/ (the month of today), after the site's own pages."""
    if not settings.settings_of(app).enabled:
        return []
    from host import MenuEntry

    return [MenuEntry("Events", "/events/", order=MENU_ORDER)]


MENU_ORDER = 1000  # after core's pages (their menu_order, usually small)


@hookimpl
def startup(app):
    ensure_row(app)
    keys.load(app)


@hookimpl
def content_saved(app, event):
    """An event written through core/v2 keeps the list's copy of its status (and gets a row if it had none);
    any write to an event, venue or organizer makes the lists' kept objects stale."""
    if event.type in (EVENT, VENUE, ORGANIZER):
        from .sync import saved

        saved(app, event)


@hookimpl
def content_deleted(app, event):
    if event.type in (EVENT, VENUE, ORGANIZER):
        from .sync import deleted

        deleted(app, event)


@hookimpl
def terms_changed(app, taxonomy):
    if taxonomy in (CATEGORY, TAG):
        from .sync import terms_changed as changed

        changed(app)


@hookimpl
def demo_content(app, session):
    from .demo import write_demo_content

    write_demo_content(app, session)


@hookimpl
def import_wordpress_item(app, item, run):
    """Events, venues and organizers of a WordPress export (`tribe_events`, `tribe_venue`, `tribe_organizer`)."""
    from . import wordpress

    return wordpress.import_item(app, item, run)


@hookimpl
def wordpress_taxonomies(app):
    from . import wordpress

    return wordpress.taxonomies()


@hookimpl
def export_wordpress_items(app, export):
    from . import wordpress

    return wordpress.export_items(app, export)
