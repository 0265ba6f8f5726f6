"""Cross-plugin hooks, fired by the example plugin (in the role the content plugin plays) and
answered by small listener plugins, over real HTTP."""

import pluggy
from marshmallow import Schema, fields

from host import Namespace, Route
from host.testing import assert_rest_error, make_plugin


def test_hook_content_saved(make_app, example_plugin, make_user):
    saved = []

    def content_saved(event):
        saved.append((dict(event.item), event.created))
        assert (event.id, event.type, event.status) == (event.item["id"], "note", event.item["status"])

    app = make_app(plugins=["example", make_plugin("listener", content_saved)])
    editor = make_user(app, "editor")
    note = app.client.post_json("/wp-json/example/v1/notes", {"title": "Sports day"}, headers=editor.headers,
                                status=201).json
    assert saved == [({"id": note["id"], "type": "note", "status": "draft", "title": "Sports day"}, True)]
    # a write that fails after its insert is rolled back, and nobody hears about it
    app.client.post_json("/wp-json/example/v1/notes", {"title": "explode after insert"}, headers=editor.headers,
                         status=500)
    assert_rest_error(app.client.post_json("/wp-json/example/v1/notes", {"title": "Nope"}, status=401),
                      "rest_forbidden", 401)
    assert len(saved) == 1
    assert [item["id"] for item in app.client.get("/wp-json/example/v1/notes").json] == [note["id"]]


def test_hook_content_deleted(make_app, example_plugin, make_user):
    deleted = []

    def content_deleted(event):
        deleted.append((event.id, event.status, event.force))

    app = make_app(plugins=["example", make_plugin("listener", content_deleted)])
    editor = make_user(app, "editor")
    note = app.client.post_json("/wp-json/example/v1/notes", {"title": "Old notice"}, headers=editor.headers).json
    url = f"/wp-json/example/v1/notes/{note['id']}"
    assert_rest_error(app.client.delete(url, status=401), "rest_forbidden", 401)
    assert deleted == []
    trashed = app.client.delete(url, headers=editor.headers)
    assert trashed.json["status"] == "trash"
    assert deleted == [(note["id"], "draft", False)]
    assert_rest_error(app.client.delete(url, headers=editor.headers, status=410), "example_already_trashed", 410)
    gone = app.client.delete(url + "?force=true", headers=editor.headers)
    assert gone.json["deleted"] is True and gone.json["previous"]["id"] == note["id"]
    assert deleted == [(note["id"], "draft", False), (note["id"], "trash", True)]
    assert_rest_error(app.client.get(url, status=404), "example_note_not_found", 404)


def test_hook_check_spam(make_app, example_plugin):
    submissions = []

    def check_spam(submission):
        submissions.append(submission)
        if "http://" in submission["content"]:
            return {"spam": True, "reason": "links in feedback"}
        return None

    app = make_app(plugins=["example", make_plugin("spamfilter", check_spam)])
    spam = app.client.post_json("/wp-json/example/v1/feedback", {"author": "Bot", "message": "cheap http://x.test"},
                                status=201)
    assert spam.json["status"] == "spam"
    ham = app.client.post_json("/wp-json/example/v1/feedback", {"author": "Ann", "email": "ann@school.test",
                                                                 "message": "Lovely concert!"}, status=201)
    assert ham.json["status"] == "received"
    assert submissions[1]["type"] == "feedback"
    assert submissions[1]["email"] == "ann@school.test" and submissions[1]["content"] == "Lovely concert!"
    with app.db.session() as session:
        table = app.db.metadata.tables["example_feedback"]
        rows = session.execute(table.select().order_by(table.c.id)).all()
    assert [(row.status, row.spam_reason) for row in rows] == [("spam", "links in feedback"), ("received", "")]

    unfiltered = make_app(plugins=["example"])  # no filter: nothing is spam
    assert unfiltered.client.post_json("/wp-json/example/v1/feedback", {"author": "Bot", "message": "http://x.test"},
                                       status=201).json["status"] == "received"


def test_hook_render_content(make_app, example_plugin, make_user):
    def render_content(item, content):
        content["html"] = content["html"].replace("Sports day", '<mark>Sports day</mark>')

    def add_note_type(item, content):
        content["html"] += f'<footer data-type="{item["type"]}"></footer>'

    app = make_app(plugins=["example", make_plugin("highlight", render_content),
                            make_plugin("footer", render_content=add_note_type)])
    editor = make_user(app, "editor")
    note = app.client.post_json("/wp-json/example/v1/notes", {"title": "Sports day & games"},
                                headers=editor.headers).json
    preview = app.client.get(f"/wp-json/example/v1/notes/{note['id']}/preview").json
    assert preview == {"id": note["id"], "rendered": '<p><mark>Sports day</mark> &amp; games</p>'
                                                     '<footer data-type="note"></footer>'}
    plain = make_app(plugins=["example"])
    created = plain.client.post_json("/wp-json/example/v1/notes", {"title": "Sports day"},
                                     headers=make_user(plain, "editor").headers).json
    assert plain.client.get(f"/wp-json/example/v1/notes/{created['id']}/preview").json["rendered"] == "<p>Sports day</p>"


def test_hook_oembed_providers(make_app, example_plugin):
    video = make_plugin("video", oembed_providers=lambda: [
        (r"https://video\.school\.test/watch/.*", "https://video.school.test/oembed")])
    slides = make_plugin("slides", oembed_providers=lambda: [
        (r"https://slides\.example/.*", "https://slides.example/api/oembed")])
    app = make_app(plugins=["example", video, slides])
    providers = app.client.get("/wp-json/example/v1/oembed-providers").json
    assert sorted(providers, key=lambda provider: provider["endpoint"]) == [
        {"pattern": r"https://slides\.example/.*", "endpoint": "https://slides.example/api/oembed"},
        {"pattern": r"https://video\.school\.test/watch/.*", "endpoint": "https://video.school.test/oembed"},
    ]
    assert make_app(plugins=["example"]).client.get("/wp-json/example/v1/oembed-providers").json == []


class LunchHooks:
    """Hooks the lunch plugin publishes for other plugins."""

    @pluggy.HookspecMarker("sitehost")
    def lunch_menu_published(self, app, day, dishes):
        """Called after a day's menu was published."""


def test_hook_add_hookspecs(make_app):
    heard = []

    def publish(request):
        request.app.hook.lunch_menu_published(app=request.app, day=request.params["day"], dishes=["soup"])
        return {"published": request.params["day"]}

    publisher = make_plugin(
        "lunch", add_hookspecs=lambda plugin_manager: plugin_manager.add_hookspecs(LunchHooks),
        register_namespaces=lambda: [Namespace("lunch/v1")],
        register_routes=lambda: [Route("lunch/v1", "/publish", "POST", publish,
                                       args=Schema.from_dict({"day": fields.String(required=True)}))])
    # registered before the publisher: the spec is checked when it arrives
    newsletter = make_plugin("lunch_newsletter", lunch_menu_published=lambda day, dishes: heard.append((day, dishes)))
    app = make_app(plugins=[newsletter, publisher])
    assert app.plugin("lunch_newsletter").state == "enabled" and app.plugin("lunch").state == "enabled"
    assert "lunch_menu_published" in app.plugin("lunch_newsletter").hooks
    assert app.client.post_json("/wp-json/lunch/v1/publish", {"day": "2025-09-01"}).json == {"published": "2025-09-01"}
    assert heard == [("2025-09-01", ["soup"])]


def test_hook_render_cache_key(make_app, make_user):
    """A block whose output depends on other data names it in the cache key, or opts out."""
    state = {"next_event": "Sports day", "version": 1, "cache": True}

    def render_content(item, content):
        content["html"] += f'<aside>Next: {state["next_event"]}</aside>'

    def render_cache_key(item):
        return state["version"] if state["cache"] else False

    app = make_app(plugins=["core", make_plugin("events_block", render_content, render_cache_key)])
    editor = make_user(app, "editor")
    post = app.client.post_json("/wp-json/core/v2/posts", {"title": "News", "content": "Hello", "status": "publish"},
                                headers=editor.headers).json

    def rendered_item():
        return app.client.get(f"/wp-json/core/v2/posts/{post['id']}").json["content"]["rendered"]

    def rendered_list():
        return app.client.get("/wp-json/core/v2/posts").json[0]["content"]["rendered"]

    assert "Next: Sports day" in rendered_item() and "Next: Sports day" in rendered_list()
    state["next_event"] = "Concert"  # the events changed, the post did not
    assert "Next: Sports day" in rendered_item()  # same key: the cached output (the contract this hook fixes)
    state["version"] = 2
    assert "Next: Concert" in rendered_item() and "Next: Concert" in rendered_list()
    state.update(next_event="Fair", cache=False)  # opted out: rendered afresh every time
    assert "Next: Fair" in rendered_item() and "Next: Fair" in rendered_list()


def test_render_cache_key_keeps_list_items_reused(make_app, make_user):
    """A plugin implementing the hook no longer makes core encode every list item afresh: items it adds
    nothing to are reused until the content changes; items it adds a key to are reused while the key holds."""
    state = {"renders": [], "keyed": set(), "version": 1}

    def render_content(item, content):
        state["renders"].append(item["id"])
        if item["id"] in state["keyed"]:
            content["html"] += f"<aside>v{state['version']}</aside>"

    def render_cache_key(item):
        return state["version"] if item["id"] in state["keyed"] else None

    app = make_app(plugins=["core", make_plugin("versioned_block", render_content, render_cache_key)])
    editor = make_user(app, "editor")
    plain, keyed = (app.client.post_json("/wp-json/core/v2/posts", {"title": title, "content": "Hello",
                                                                    "status": "publish"}, headers=editor.headers).json
                    for title in ("Plain", "Keyed"))
    state["keyed"].add(keyed["id"])

    def listed():
        return {item["id"]: item["content"]["rendered"] for item in app.client.get("/wp-json/core/v2/posts").json}

    first = listed()
    assert "v1" in first[keyed["id"]] and "<aside>" not in first[plain["id"]]
    state["renders"].clear()
    assert listed() == first and state["renders"] == []  # both reused: nothing rendered again
    state["version"] = 2  # the keyed item's other data changed; the plain one's did not
    second = listed()
    assert "v2" in second[keyed["id"]] and second[plain["id"]] == first[plain["id"]]
    assert plain["id"] not in state["renders"] and keyed["id"] in state["renders"]
    app.client.post_json(f"/wp-json/core/v2/posts/{plain['id']}", {"content": "Changed"}, headers=editor.headers)
    assert "Changed" in listed()[plain["id"]]  # a write changes the content version: built again


def test_hook_user_created(make_app, make_user):
    """Fired inside the creating transaction for every path that makes an account: REST and the admin page."""
    from sqlalchemy import text

    from tests.admin.helpers import form_with, sign_in

    created = []

    def user_created(app, session, user):
        # the new row is visible in the caller's transaction, and writes join it
        seen = session.execute(text("SELECT login FROM users WHERE id = :id"), {"id": user.id}).scalar_one()
        created.append((seen, user.email))
        if user.login == "refused-by-listener":
            raise RuntimeError("listener refuses")

    app = make_app(plugins=["core", make_plugin("listener", user_created)])
    admin = make_user(app, "administrator")
    created.clear()
    app.client.post_json("/wp-json/core/v2/users", {"username": "ada", "email": "ada@school.test",
                                                    "password": "a long password"}, headers=admin.headers, status=201)
    assert created == [("ada", "ada@school.test")]
    page = sign_in(app, admin).get("/admin/users")
    answer = form_with(page, "create", login="grace", email="grace@school.test", role="editor",
                       password="another long password").submit()
    assert answer.status_int == 201 and created[-1] == ("grace", "grace@school.test")
    # a listener that fails rolls the account back with it
    app.client.post_json("/wp-json/core/v2/users", {"username": "refused-by-listener", "email": "r@school.test",
                                                    "password": "a long password"}, headers=admin.headers,
                         status=500)
    logins = [user["slug"] for user in app.client.get("/wp-json/core/v2/users", {"context": "edit", "per_page": 100},
                                                      headers=admin.headers).json]
    assert "refused-by-listener" not in logins and {"ada", "grace"} <= set(logins)


def test_hook_user_updated(make_app, make_user):
    """Fired inside the changing transaction with what changed, from REST and the admin pages; not for
    a write that changes nothing; a failing listener rolls the change back."""
    from tests.admin.helpers import form_with, sign_in

    heard = []

    def user_updated(app, session, user, changed):
        heard.append((user.login, user.email, changed))
        if user.email == "refused@school.test":
            raise RuntimeError("listener refuses")

    app = make_app(plugins=["core", make_plugin("listener", user_updated)])
    admin = make_user(app, "administrator")
    author = make_user(app, "author")
    heard.clear()
    path = f"/wp-json/core/v2/users/{author.id}"
    app.client.post_json(path, {"email": "new@school.test", "name": "Ms New"}, headers=admin.headers, status=200)
    assert heard == [(author.login, "new@school.test", ["display_name", "email"])]
    app.client.post_json(path, {"email": "new@school.test"}, headers=admin.headers, status=200)
    assert len(heard) == 1  # nothing changed, nobody hears
    page = sign_in(app, admin).get(f"/admin/users/{author.id}")
    assert "is now editor" in form_with(page, "role", role="editor").submit().text
    assert heard[-1] == (author.login, "new@school.test", ["roles"])
    app.client.post_json(path, {"email": "refused@school.test"}, headers=admin.headers, status=500)
    assert app.client.get(path, {"context": "edit"}, headers=admin.headers).json["email"] == "new@school.test"


def test_hook_user_deleted(make_app, make_user):
    """Fired inside the deleting transaction, with the row still readable and the heir named, from REST and
    the admin page; a refused deletion fires nothing; a failing listener keeps the account."""
    from sqlalchemy import text

    from tests.admin.helpers import form_with, sign_in

    heard = []

    def user_deleted(app, session, user, reassign_to):
        still = session.execute(text("SELECT login FROM users WHERE id = :id"), {"id": user.id}).scalar_one()
        heard.append((still, reassign_to))
        if user.login.startswith("keep"):
            raise RuntimeError("listener refuses")

    app = make_app(plugins=["core", make_plugin("listener", user_deleted)])
    admin = make_user(app, "administrator")
    author, editor = make_user(app, "author"), make_user(app, "editor")
    app.client.post_json("/wp-json/core/v2/posts", {"title": "Sports day", "status": "publish"},
                         headers=author.headers, status=201)
    app.client.delete(f"/wp-json/core/v2/users/{author.id}", {"force": "true"}, headers=admin.headers, status=400)
    assert heard == []  # refused (authored content, no heir): nothing was deleted, nobody hears
    app.client.delete(f"/wp-json/core/v2/users/{author.id}", {"force": "true", "reassign": admin.id},
                      headers=admin.headers, status=200)
    assert heard == [(author.login, admin.id)]
    page = sign_in(app, admin).get(f"/admin/users/{editor.id}")
    assert f"User {editor.login} deleted" in form_with(page, "delete", reassign=str(admin.id)).submit().text
    assert heard[-1] == (editor.login, admin.id)
    kept = app.client.post_json("/wp-json/core/v2/users", {"username": "keep-me", "email": "keep@school.test",
                                                           "password": "a long password"},
                                headers=admin.headers, status=201).json
    app.client.delete(f"/wp-json/core/v2/users/{kept['id']}", {"force": "true", "reassign": admin.id},
                      headers=admin.headers, status=500)
    assert app.client.get(f"/wp-json/core/v2/users/{kept['id']}", headers=admin.headers, status=200).json["id"] == kept["id"]


def test_hook_site_settings_changed(make_app, make_user):
    """Fired once per committed write of core/v2/settings, naming the settings written; not for a refused one."""
    heard = []

    def site_settings_changed(app, keys):
        heard.append((keys, app.site_identity()["name"]))

    app = make_app(plugins=["core", make_plugin("listener", site_settings_changed)])
    admin = make_user(app, "administrator")
    app.client.post_json("/wp-json/core/v2/settings", {"title": "Riverside Primary", "posts_per_page": 7},
                         headers=admin.headers, status=200)
    assert [keys for keys, _name in heard] == [["posts_per_page", "title"]]
    assert heard[0][1] == "Riverside Primary"  # after the commit: the new name is what a reader sees
    app.client.post_json("/wp-json/core/v2/settings", {"timezone": "Mars/Olympus"}, headers=admin.headers, status=400)
    assert len(heard) == 1  # a refused write changed nothing, and nobody hears about it
    assert app.client.get("/wp-json/").json["name"] == "Riverside Primary"
