"""`/static/<plugin>/<path>` serves files of an enabled plugin's own `static/` folder, and nothing else."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.fixture
def bookshelf(tmp_path, monkeypatch):
    """A third-party plugin package on disk with a static/ folder, as an installed plugin would be."""
    package = tmp_path / "bookshelf_static"
    (package / "static" / "css").mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from host import PluginInfo\nPLUGIN = PluginInfo(name='bookshelf', version='1.0')\n")
    (package / "static" / "css" / "shelf.css").write_text("body { color: #123456; }\n")
    (tmp_path / "secret.txt").write_text("not for visitors\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("bookshelf_static")
    yield module
    sys.modules.pop("bookshelf_static", None)


def test_an_enabled_plugins_static_file_is_served_with_its_type_and_a_cache_lifetime(make_app, bookshelf):
    app = make_app(plugins=["core", bookshelf])
    answer = app.client.get("/static/bookshelf/css/shelf.css", status=200)
    assert answer.body == b"body { color: #123456; }\n"
    assert answer.headers["Content-Type"].startswith("text/css")
    assert answer.headers["Cache-Control"] == "public, max-age=3600"
    assert app.client.head("/static/bookshelf/css/shelf.css", status=200).body == b""


def test_missing_files_paths_leaving_the_folder_and_unknown_or_disabled_plugins_answer_404(make_app, bookshelf):
    app = make_app(plugins=["core", bookshelf])
    app.client.get("/static/bookshelf/css/missing.css", status=404)
    app.client.get("/static/bookshelf/../secret.txt", status=404)
    app.client.get("/static/bookshelf/%2e%2e/secret.txt", status=404)
    app.client.get("/static/nobody/css/shelf.css", status=404)
    app.client.get("/static/core/anything.css", status=404)  # core has no static folder
    disabled = make_app(plugins=["core", bookshelf], disabled=["bookshelf"])
    disabled.client.get("/static/bookshelf/css/shelf.css", status=404)
