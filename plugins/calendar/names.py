"""Names the calendar registers: its namespace, post types, taxonomies and statuses."""

NAMESPACE = "cal/events/v1"
EVENT, VENUE, ORGANIZER, IMPORT = "cal_event", "cal_venue", "cal_organizer", "cal_import"
CATEGORY, TAG = "cal_events_cat", "cal_event_tag"
TAXONOMY_BASES = {CATEGORY: "cal_events_cat", TAG: "cal_event_tag"}
IMPORT_STATUSES = ("cal-ea-success", "cal-ea-failed", "cal-ea-schedule", "cal-ea-pending", "cal-ea-draft")
IGNORED = "cal-ignored"
WRITABLE = ("publish", "future", "draft", "pending", "private")

VENUE_META = ("address", "city", "country", "province", "state", "zip", "phone", "stateprovince", "website")
ORGANIZER_META = ("phone", "website", "email")
# The first path segments of the public pages, as the reference calendar spells them (its
# `tribe_events` single slug, `tribe_venue`, `tribe_organizer`, and the `events/category` and
# `events/tag` archives): a published item's link is `<site>/<segment>/<slug>/`.
REWRITES = {EVENT: "event", VENUE: "venue", ORGANIZER: "organizer", CATEGORY: "events/category", TAG: "events/tag"}
