"""`--fetch-media`: attachments' files downloaded from the old site through the outbound guard (a real
HTTP server on 127.0.0.1 standing in for the old site), refused for private addresses unless allowed."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from host.testing import create_test_user

from .helpers import SITE_FILE, UPLOADS, OLD, run_import, write_config


@pytest.fixture
def old_site(tmp_path):
    """The old site's uploads served over HTTP, and the export rewritten to name that address."""
    root = tmp_path / "old-site"
    (root / "wp-content").mkdir(parents=True)
    (root / "wp-content" / "uploads").symlink_to(UPLOADS)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{server.server_address[1]}"
    export = tmp_path / "export.xml"
    export.write_text(SITE_FILE.read_text(encoding="utf-8").replace(OLD, address), encoding="utf-8")
    yield export
    server.shutdown()


def test_media_are_fetched_when_private_addresses_are_allowed(make_app, tmp_path, old_site):
    app = make_app(plugins=["core", "wordpress_migrate"])
    admin = create_test_user(app, "administrator")
    config = write_config(app, tmp_path)
    config.write_text(config.read_text() + "\n[plugins.wordpress_migrate]\nallow_private_media = true\n")
    result = run_import(config, str(old_site), "--fetch-media")
    assert result.exit_code == 0, result.output
    assert "  attachment: 3 created" in result.output
    logo = app.client.get("/wp-json/core/v2/media/40", params={"context": "edit"}, headers=admin.headers).json
    assert app.client.get(logo["source_url"].removeprefix("http://school.test")).body == \
        (UPLOADS / "2025/01/logo.png").read_bytes()


def test_the_outbound_guard_refuses_private_addresses_by_default(make_app, tmp_path, old_site):
    app = make_app(plugins=["core", "wordpress_migrate"])
    result = run_import(write_config(app, tmp_path), str(old_site), "--fetch-media")
    assert result.exit_code == 0, result.output
    assert "  attachment: 0 created, 0 updated, 0 unchanged, 3 not imported" in result.output
    assert "attachment 40 'Hillside logo': fetching http://127.0.0.1:" in result.output
    assert "private" in result.output.split("attachment 40 'Hillside logo'")[1].splitlines()[0]
