"""Hooks of the request pipeline: authenticate, handle_exception, response_headers, the
response cache pair, request_finished, and map_meta_capability (through the example plugin)."""

from host import Namespace, RestError, RestResponse, Route, hookimpl
from host.testing import assert_rest_error, make_plugin


def lunch_routes(*routes):
    return dict(register_namespaces=lambda: [Namespace("lunch/v1")], register_routes=lambda: list(routes))


class KioskUser:
    """The canteen kiosk: signed in by a token header, may only read menus."""

    id = 9000
    login = "kiosk"
    is_authenticated = True
    roles = ("kiosk",)
    application_password_uuid = None

    def can(self, capability, *args):
        return capability == "read_menus"


def test_hook_authenticate(make_app, make_user):
    @hookimpl(tryfirst=True)
    def authenticate(request):
        token = request.header("x-kiosk-token")
        if token is None:
            return None
        if token != "canteen-42":
            raise RestError("lunch_bad_token", "The kiosk token is wrong.", 401)
        return KioskUser()

    whoami = Route("lunch/v1", "/whoami", "GET", lambda request: {"id": request.user.id, "login": request.user.login})
    app = make_app(plugins=[make_plugin("kiosk", authenticate, **lunch_routes(whoami))])
    assert app.client.get("/wp-json/lunch/v1/whoami", headers={"X-Kiosk-Token": "canteen-42"}).json == {
        "id": 9000, "login": "kiosk"}
    assert_rest_error(app.client.get("/wp-json/lunch/v1/whoami", headers={"X-Kiosk-Token": "nope"}, status=401),
                      "lunch_bad_token", 401)
    assert app.client.get("/wp-json/lunch/v1/whoami").json == {"id": 0, "login": ""}
    editor = make_user(app, "editor")  # no opinion from the kiosk: application passwords still work
    assert app.client.get("/wp-json/lunch/v1/whoami", headers=editor.headers).json == {
        "id": editor.id, "login": editor.login}


def test_hook_handle_exception(make_app):
    def boom(request):
        raise ConnectionError("menu service at 10.0.0.7 is down")

    def handle_exception(exception):
        if isinstance(exception, ConnectionError):
            return RestResponse({"code": "lunch_unavailable", "message": "Menus are unavailable right now.",
                                 "data": {"status": 503}}, 503, {"Retry-After": "30"})
        return None

    route = Route("lunch/v1", "/menu", "GET", boom)
    answered = make_app(plugins=[make_plugin("lunch", handle_exception, **lunch_routes(route))])
    response = answered.client.get("/wp-json/lunch/v1/menu", status=503)
    assert_rest_error(response, "lunch_unavailable", 503)
    assert response.headers["Retry-After"] == "30"

    unanswered = make_app(plugins=[make_plugin("lunch", **lunch_routes(route))])
    body = assert_rest_error(unanswered.client.get("/wp-json/lunch/v1/menu", status=500), "internal_server_error", 500)
    assert "10.0.0.7" not in str(body)


def test_hook_map_meta_capability(make_app, example_plugin, make_user):
    @hookimpl
    def map_meta_capability(capability, args):
        if capability == "delete_note" and args and args[0]["title"].startswith("Locked"):
            return ["do_not_allow"]
        return None

    app = make_app(plugins=["example", make_plugin("locks", map_meta_capability)])
    editor = make_user(app, "editor")
    open_note = app.client.post_json("/wp-json/example/v1/notes", {"title": "Menu ideas"}, headers=editor.headers).json
    locked = app.client.post_json("/wp-json/example/v1/notes", {"title": "Locked minutes"}, headers=editor.headers).json
    assert_rest_error(app.client.delete(f"/wp-json/example/v1/notes/{locked['id']}", headers=editor.headers,
                                        status=403), "example_cannot_delete", 403)
    assert app.client.get(f"/wp-json/example/v1/notes/{locked['id']}").json["status"] == "draft"
    # no opinion from `locks`: the example plugin maps delete_note to delete_posts
    assert app.client.delete(f"/wp-json/example/v1/notes/{open_note['id']}", headers=editor.headers).json[
        "status"] == "trash"
    subscriber = make_user(app, "subscriber")
    assert_rest_error(app.client.delete(f"/wp-json/example/v1/notes/{open_note['id']}", headers=subscriber.headers,
                                        status=403), "rest_forbidden", 403)


def test_hook_response_headers(make_app):
    def response_headers(response):
        response["X-Lunch-Served"] = "yes"

    route = Route("lunch/v1", "/menu", "GET", lambda request: {"dishes": []})
    app = make_app(plugins=[make_plugin("lunch", response_headers, **lunch_routes(route))])
    assert app.client.get("/wp-json/lunch/v1/menu").headers["X-Lunch-Served"] == "yes"
    error = app.client.get("/wp-json/lunch/v1/nothing", status=404)
    assert error.headers["X-Lunch-Served"] == "yes"
    assert_rest_error(error, "rest_no_route", 404)


def test_hook_cached_response(make_app, make_user):
    cache, handled = {}, []

    def cached_response(request):
        return cache.get(request.path)

    def store_response(request, status, headers, body):
        if status == 200:
            cache[request.path] = (status, {**headers, "X-Lunch-Cache": "hit"}, body)

    def menu(request):
        handled.append(request.user.id)
        return {"dishes": ["soup"], "served": len(handled)}

    plugin = make_plugin("menu_cache", cached_response, store_response,
                         **lunch_routes(Route("lunch/v1", "/menu", "GET", menu)))
    app = make_app(plugins=[plugin])
    first = app.client.get("/wp-json/lunch/v1/menu")
    assert first.json == {"dishes": ["soup"], "served": 1} and "X-Lunch-Cache" not in first.headers
    second = app.client.get("/wp-json/lunch/v1/menu")
    assert second.json == {"dishes": ["soup"], "served": 1}
    assert second.headers["X-Lunch-Cache"] == "hit"
    assert handled == [0]
    editor = make_user(app, "editor")  # signed-in requests never come from the cache
    assert app.client.get("/wp-json/lunch/v1/menu", headers=editor.headers).json["served"] == 2
    assert handled == [0, editor.id]


def test_hook_store_response(make_app):
    stored = []

    def store_response(request, status, headers, body):
        stored.append((request.path, status, headers["Content-Type"], body))

    route = Route("lunch/v1", "/menu", "GET", lambda request: {"dishes": ["pie"]})
    app = make_app(plugins=[make_plugin("lunch", store_response, **lunch_routes(route))])
    app.client.get("/wp-json/lunch/v1/menu")
    app.client.get("/wp-json/lunch/v1/missing", status=404)
    app.client.post("/wp-json/lunch/v1/menu", status=404)  # not a GET: not offered to the cache
    assert stored == [
        ("/lunch/v1/menu", 200, "application/json; charset=UTF-8", b'{"dishes":["pie"]}'),
        ("/lunch/v1/missing", 404, "application/json; charset=UTF-8",
         b'{"code":"rest_no_route","message":"No route was found matching the URL and request method.",'
         b'"data":{"status":404}}'),
    ]


def test_hook_request_finished(make_app):
    finished = []

    def request_finished(request, status):
        finished.append((request.method, request.path, status))

    def refuse(request):
        raise RestError("lunch_closed", "The canteen is closed.", 409)

    app = make_app(plugins=[make_plugin("lunch", request_finished, **lunch_routes(
        Route("lunch/v1", "/menu", "GET", lambda request: {"dishes": []}),
        Route("lunch/v1", "/order", "POST", refuse)))])
    app.client.get("/wp-json/lunch/v1/menu")
    app.client.post("/wp-json/lunch/v1/order", status=409)
    app.client.get("/wp-json/lunch/v1/nothing", status=404)
    assert finished == [("GET", "/lunch/v1/menu", 200), ("POST", "/lunch/v1/order", 409),
                        ("GET", "/lunch/v1/nothing", 404)]
