"""Services (host.services): `app.content`, `app.comments` and `app.users` are reached as typed app
attributes, provided by core through `register_services`, and only by plugins that require core."""

from __future__ import annotations

import importlib
import textwrap

import pytest

from host.services import ServiceUnavailable
from host.testing import make_plugin

# A plugin in a module of its own (as every real plugin is): the app tells which plugin asks for a
# service by the module of the code that asks.
READER_SOURCE = '''
from host import Namespace, PluginInfo, Route, hookimpl

PLUGIN = PluginInfo(name="reader", version="1", requires={requires!r})


def published_total(request):
    _items, total = request.app.content.query(request, "post")
    return {{"published": total}}


@hookimpl
def register_namespaces():
    return [Namespace("reader/v1")]


@hookimpl
def register_routes():
    return [Route("reader/v1", "/published", "GET", published_total)]
'''


def reader_plugin(tmp_path, monkeypatch, requires: tuple[str, ...]):
    """The reader plugin written as a package on sys.path, under a module name of its own."""
    name = f"reader_plugin_{'_'.join(requires) or 'alone'}"
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(READER_SOURCE.format(requires=requires)))
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module(name)


def test_a_plugin_that_requires_core_reads_through_the_content_service(make_app, tmp_path, monkeypatch):
    """The route counts published posts with `app.content`: its plugin lists core in requires=."""
    site = make_app(plugins=["core", reader_plugin(tmp_path, monkeypatch, ("core",))])
    answer = site.client.get("/wp-json/reader/v1/published")
    assert answer.status_int == 200 and answer.json == {"published": 0}


def test_a_plugin_that_uses_core_without_requiring_it_fails(make_app, tmp_path, monkeypatch):
    """The same plugin without `requires=("core",)` is refused the service where it asks for it: its
    route fails (500, with no detail for the caller), so its own tests fail before a site runs it
    with core disabled."""
    site = make_app(plugins=["core", reader_plugin(tmp_path, monkeypatch, ())])
    answer = site.client.get("/wp-json/reader/v1/published", status=500)
    assert answer.json["data"]["status"] == 500 and "core" not in answer.json["message"]


def test_the_refusal_names_the_plugin_the_service_and_the_requirement(make_app, tmp_path, monkeypatch, caplog):
    """What the plugin's author reads in the log: who asked, for which service, and what to add."""
    site = make_app(plugins=["core", reader_plugin(tmp_path, monkeypatch, ())])
    site.client.get("/wp-json/reader/v1/published", status=500)
    assert ("plugin 'reader' uses the content service of plugin 'core' without requiring it: "
            "add 'core' to requires= of its PluginInfo") in caplog.text


def test_a_service_nobody_provides_names_the_plugin_that_provides_it(make_app):
    """Without core no one provides content, comments or users: asking says core provides them."""
    app = make_app(plugins=["example"])
    for name in ("content", "comments", "users"):
        with pytest.raises(ServiceUnavailable, match=f"no {name} service: the core plugin provides it"):
            getattr(app, name)


def test_hook_register_services(make_app):
    """Core answers register_services with its three services; the app keeps who provides each."""
    app = make_app(plugins=["core"])
    assert {name: app.services.provider(name) for name in ("content", "comments", "users")} == {
        "content": "core", "comments": "core", "users": "core"}


def test_a_second_provider_of_a_service_fails_to_start(make_app):
    """Two content services would make `app.content` ambiguous: the second plugin is left out, with the reason."""
    rival = make_plugin("rival", register_services=lambda app: {"content": object()})
    app = make_app(plugins=["core", rival])
    record = app.plugin("rival")
    assert not record.loaded and "service 'content' provided by 'core' and 'rival'" in record.error
    assert app.services.provider("content") == "core"


def test_an_unknown_service_name_fails_to_start(make_app):
    stray = make_plugin("stray", register_services=lambda app: {"weather": object()})
    app = make_app(plugins=["core", stray])
    assert not app.plugin("stray").loaded and "unknown service 'weather'" in app.plugin("stray").error


def test_a_provider_that_fails_to_start_takes_its_services_with_it(make_app):
    """A plugin whose startup fails is left out: what it provided is gone, and asking names the provider."""
    def startup(app):
        raise RuntimeError("no weather station")

    weather = make_plugin("weather", register_services=lambda app: {"users": object()}, startup=startup)
    app = make_app(plugins=[weather])
    assert not app.plugin("weather").loaded
    with pytest.raises(ServiceUnavailable, match="no users service"):
        _ = app.users
