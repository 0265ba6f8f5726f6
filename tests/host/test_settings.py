"""sitehost.toml and SITEHOST_* are checked before anything starts.

A wrong type, a misspelt key or an impossible value stops the command with one `Error:`
line naming the key, the value and what is allowed, and nothing is created. Settings that
are allowed but probably not meant (a plugin that is not installed) give a warning line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CASES = [
    ('max_body_bytes = "lots"', "max_body_bytes = 'lots' is not valid; allowed: a whole number from 1 to"),
    ('databse_url = "sqlite:///x.db"', "unknown setting 'databse_url' (known: auth, channel_timeout"),
    ('database_url = "mysql://x/y"',
     "database_url = 'mysql://x/y' is not valid; allowed: sqlite:///PATH.db or postgresql+psycopg://"),
    ('[site]\ntimezone_string = "Mars/Olympus"',
     "[site]: timezone_string = 'Mars/Olympus' is not valid; allowed: an IANA time zone"),
    ('[site]\nshow_on_front = "news"', "[site]: show_on_front = 'news' is not valid; allowed: posts or page"),
    ('[site]\nnmae = "Riverside"', "[site]: unknown setting 'nmae'"),
    ('cors_origins = "https://app.school.test"', "cors_origins = 'https://app.school.test' is not valid; allowed: a list"),
    ('rest_prefix = "/wp-json/"', "rest_prefix = '/wp-json/' is not valid; allowed: a path such as /wp-json"),
    ('channel_timeout = 0', "channel_timeout = 0 is not valid; allowed: a whole number from 1 to 3,600 (seconds)"),
    ('trust_proxy = "yes"', "trust_proxy = 'yes' is not valid; allowed: true or false"),
    ('trusted_proxies = ["10.0.0.300"]',
     "trusted_proxies = ['10.0.0.300'] is not valid; '10.0.0.300' is not an IP address or network; allowed: IP "
     "addresses or networks such as 10.0.0.5"),
    ('site = "Riverside"', "site = 'Riverside' is not valid; allowed: a table"),
    # plugin tables, against the Schema class each plugin declares in PluginInfo.settings
    ('[plugins.core]\nmax_upload_bytes = "lots"', "[plugins.core]: max_upload_bytes = 'lots' is not valid; Not a valid"),
    ('[plugins.core]\navatar_url = "gravatar"', "[plugins.core]: avatar_url = 'gravatar' is not valid; allowed: empty"),
    ('[plugins.cache]\nmax_entriez = 3', "[plugins.cache]: unknown setting 'max_entriez' (known: allow_private_targets, cache_indexes"),
    ('[plugins.oembed]\nfetch_timeout_seconds = 0', "[plugins.oembed]: fetch_timeout_seconds = 0 is not valid"),
]


def sitehost(folder, *arguments, env_extra=None):
    env = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "host.cli", *arguments], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("toml,expected", CASES, ids=[case[0].split("=")[0].strip().replace("\n", " ") for case in CASES])
def test_a_bad_setting_stops_with_one_error_line_and_creates_nothing(tmp_path, toml, expected):
    (tmp_path / "sitehost.toml").write_text(toml + "\n")
    result = sitehost(tmp_path, "init")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and expected in lines[0], result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sitehost.toml"]


def test_a_bad_database_url_in_the_environment_names_the_variable(tmp_path):
    result = sitehost(tmp_path, "init", env_extra={"SITEHOST_DATABASE_URL": "mysql://x/y"})
    assert result.returncode == 1
    assert result.stderr.strip() == ("Error: SITEHOST_DATABASE_URL: database_url = 'mysql://x/y' is not valid; "
                                     "allowed: sqlite:///PATH.db or postgresql+psycopg://USER@HOST/DATABASE")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_plugin_or_variable_is_a_warning_and_the_site_starts(tmp_path):
    (tmp_path / "sitehost.toml").write_text('[plugins]\ndisabled = ["weather", "oembed"]\n\n'
                                            '[plugins.weather]\nunits = "metric"\n')
    result = sitehost(tmp_path, "init", env_extra={"SITEHOST_DATABSE_URL": "sqlite:///typo.db"})
    assert result.returncode == 0, result.stderr
    assert "warning: [plugins] disabled names 'weather', which is not installed (installed: " in result.stderr
    assert "cache, calendar, core, " in result.stderr
    assert "warning: [plugins.weather] configures a plugin that is not installed" in result.stderr
    assert "warning: unknown environment variable SITEHOST_DATABSE_URL ignored" in result.stderr
    assert (tmp_path / "sitehost.db").exists() and not (tmp_path / "typo.db").exists()


def test_a_disabled_builtin_plugin_is_listed_with_its_real_version(tmp_path):
    (tmp_path / "sitehost.toml").write_text('[plugins]\ndisabled = ["oembed"]\n')
    assert sitehost(tmp_path, "init").returncode == 0
    result = sitehost(tmp_path, "plugins", "list", "--json")
    row = next(row for row in json.loads(result.stdout) if row["name"] == "oembed")
    assert (row["state"], row["version"]) == ("disabled", "0.1.0")


def assert_one_error_naming_all(result, tmp_path, count: int, expected: tuple[str, ...]) -> None:
    """The start failed with one error line naming all `count` bad settings, and created nothing."""
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {count} settings are not valid: "), result.stderr
    for text in expected:
        assert text in lines[0], (text, lines[0])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sitehost.toml"]


def test_every_bad_key_of_the_file_and_the_environment_is_named_in_one_error(tmp_path):
    """not only the first bad key; nothing is created."""
    (tmp_path / "sitehost.toml").write_text('max_body_bytes = "lots"\ndatabse_url = "sqlite:///x.db"\n'
                                            '[site]\ntimezone_string = "Mars/Olympus"\nnmae = "Riverside"\n')
    result = sitehost(tmp_path, "init", env_extra={"SITEHOST_CHANNEL_TIMEOUT": "soon",
                                                   "SITEHOST_SITE__COMMENT_MODERATION": "maybe"})
    assert_one_error_naming_all(result, tmp_path, 6, (
        "sitehost.toml: max_body_bytes = 'lots' is not valid; allowed: a whole number",
        "sitehost.toml: unknown setting 'databse_url'",
        "sitehost.toml [site]: timezone_string = 'Mars/Olympus' is not valid",
        "sitehost.toml [site]: unknown setting 'nmae'",
        "SITEHOST_CHANNEL_TIMEOUT: channel_timeout = 'soon' is not valid; allowed: a whole number",
        "SITEHOST_SITE__COMMENT_MODERATION: comment_moderation = 'maybe' is not valid; allowed: true"
    ))


def test_every_bad_key_of_every_plugin_table_is_named_in_one_error(tmp_path):
    (tmp_path / "sitehost.toml").write_text('[plugins.core]\nmax_upload_bytes = "lots"\navatar_url = "gravatar"\n'
                                            '[plugins.cache]\nmax_entriez = 3\n')
    result = sitehost(tmp_path, "init", env_extra={"SITEHOST_PLUGINS__CALENDAR__IMPORT_BATCH_SIZE": "many"})
    assert_one_error_naming_all(result, tmp_path, 4, (
        "[plugins.core]: max_upload_bytes = 'lots' is not valid",
        "[plugins.core]: avatar_url = 'gravatar' is not valid",
        "[plugins.cache]: unknown setting 'max_entriez'",
        "SITEHOST_PLUGINS__CALENDAR__IMPORT_BATCH_SIZE: import_batch_size = 'many' is not valid"
    ))


def test_every_setting_can_come_from_the_environment_with_its_type(tmp_path):
    """SITEHOST_<KEY>, tables with __, values read as their settings' types; the file is overridden key by key."""
    (tmp_path / "sitehost.toml").write_text('[site]\ndescription = "From the file"\nname = "File name"\n'
                                            '[plugins.calendar]\nimport_batch_size = 3\n')
    env = {"SITEHOST_SITE__NAME": "1984", "SITEHOST_SITE__COMMENT_FLOOD": "45",
           "SITEHOST_SITE__COMMENT_MODERATION": "true", "SITEHOST_SITE__DISALLOWED_KEYS": '["casino", "free money"]',
           "SITEHOST_CORS_ORIGINS": "https://app.school.test, https://b.school.test",
           "SITEHOST_MAX_JSON_DEPTH": "20", "SITEHOST_REST_PREFIX": "/api",
           "SITEHOST_PLUGINS__DISABLED": "oembed,lms", "SITEHOST_PLUGINS__CALENDAR__IMPORT_BATCH_SIZE": "7",
           "SITEHOST_MAIL__SMTP_PORT": "2626", "SITEHOST_MAIL__PASSWORD": "12345678",
           "SITEHOST_DATABASE_URL": f"sqlite:///{tmp_path / 'env.db'}", "SITEHOST_UPLOADS_DIR": str(tmp_path / "up")}
    probe = ("import json\nfrom host.config import load_settings\nfrom host.app import create_app\n"
             "from host.mail import MAIL_SERVICE\n"
             "app = create_app(load_settings())\ns = app.settings\nmail = app.stash[MAIL_SERVICE].settings\n"
             "print(json.dumps({'site': s.site, 'cors': s.cors_origins, 'depth': s.max_json_depth,"
             " 'prefix': s.rest_prefix, 'disabled': s.disabled, 'calendar': s.plugins['calendar'],"
             " 'port': mail.smtp_port, 'password': mail.password, 'db': s.database_url, 'uploads': s.uploads_dir,"
             " 'loaded': sorted(r.name for r in app.plugin_records if r.loaded)}))\napp.close()\n")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SITEHOST_")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={**environment, **env},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["site"]["name"] == "1984" and seen["site"]["description"] == "From the file"
    assert (seen["site"]["comment_flood"], seen["site"]["comment_moderation"]) == (45, True)
    assert seen["site"]["disallowed_keys"] == ["casino", "free money"]
    assert seen["cors"] == ["https://app.school.test", "https://b.school.test"]
    assert (seen["depth"], seen["prefix"], seen["disabled"]) == (20, "/api", ["oembed", "lms"])
    assert seen["calendar"] == {"import_batch_size": 7}
    assert (seen["port"], seen["password"]) == (2626, "12345678")
    assert seen["db"].endswith("env.db") and seen["uploads"] == str(tmp_path / "up")
    assert "oembed" not in seen["loaded"] and "calendar" in seen["loaded"]
    assert "unknown environment variable" not in result.stderr


def test_a_variable_that_names_no_setting_is_a_warning_and_a_bad_nesting_an_error(tmp_path):
    ok = sitehost(tmp_path, "init", env_extra={"SITEHOST_SITE_NAME": "typo", "SITEHOST_DATABASE_URL": ""})
    assert ok.returncode == 0, ok.stderr
    assert "warning: unknown environment variable SITEHOST_SITE_NAME ignored" in ok.stderr
    assert (tmp_path / "sitehost.db").exists()  # the empty SITEHOST_DATABASE_URL counted as unset
    bad = sitehost(tmp_path, "routes", env_extra={"SITEHOST_REST_PREFIX__X": "1", "SITEHOST_SITE__NMAE": "x",
                                                  "SITEHOST_PLUGINS__COLOUR": "red"})
    assert bad.returncode == 1
    line = bad.stderr.strip()
    assert line.startswith("Error: 3 settings are not valid: ") and len(line.splitlines()) == 1
    assert "SITEHOST_REST_PREFIX__X: rest_prefix is not a table" in line
    assert "SITEHOST_SITE__NMAE: unknown setting 'nmae'" in line
    assert "SITEHOST_PLUGINS__COLOUR: [plugins] takes only `disabled`" in line


def test_a_plugin_table_that_cannot_work_names_every_bad_key_and_leaves_the_plugin_out(make_app, tmp_path):
    """Checks that span keys or need the site (PluginSettings.prepare) run after the field check; one
    StartupError names every key they refuse, and the site starts without the plugin."""
    from host.testing import assert_in_root_index, assert_not_in_root_index

    uploads = tmp_path / "uploads"
    app = make_app(plugins=["core", "forms"], uploads_dir=str(uploads),
                   config={"forms": {"files_dir": str(uploads / "forms"), "admin_email": "no address"}})
    record = app.plugin("forms")
    assert record.state == "failed"
    assert record.error.startswith("startup failed: [plugins.forms] is invalid: ")
    assert "files_dir: " in record.error and "inside the public uploads folder" in record.error
    assert "admin_email: 'no address'" in record.error
    assert_not_in_root_index(app, "forms/v1")
    assert_in_root_index(app, "core/v2")


def test_a_plugin_reads_its_table_typed_as_its_schema_loads_it(make_app, tmp_path):
    """app.plugin_settings(name) is the object the declared schema builds; a plugin that is not enabled has none."""
    from plugins.backup.settings import BackupSettings

    app = make_app(plugins=["core", "backup"], uploads_dir=str(tmp_path / "uploads"),
                   config={"backup": {"schedule": "every 6 hours"}})
    loaded = app.plugin_settings("backup")
    assert isinstance(loaded, BackupSettings)
    assert (loaded.directory, loaded.schedule.describe(), loaded.keep) == ((tmp_path / "backups").resolve(),
                                                                           "every 6 hours", 7)
    with pytest.raises(LookupError, match="'forms'"):
        app.plugin_settings("forms")


def test_every_bad_key_of_the_auth_table_is_named_in_one_error_before_anything_starts(tmp_path):
    """`[auth]` goes through the same typed check as `[site]`: not only its first bad key."""
    (tmp_path / "sitehost.toml").write_text('[auth]\nmax_failures = 0\nlockout_minutes = 15\nslow_seconds = "long"\n')
    result = sitehost(tmp_path, "init", env_extra={"SITEHOST_AUTH__WINDOW_SECONDS": "forever"})
    assert_one_error_naming_all(result, tmp_path, 4, (
        "sitehost.toml [auth]: max_failures = 0 is not valid; allowed: a whole number from 1",
        "sitehost.toml [auth]: unknown setting 'lockout_minutes' (known: admin_email, admin_login",
        "sitehost.toml [auth]: slow_seconds = 'long' is not valid; allowed: a number of seconds",
        "SITEHOST_AUTH__WINDOW_SECONDS: window_seconds = 'forever' is not valid"
    ))
    assert "Traceback" not in result.stderr + result.stdout


def test_the_auth_table_from_the_file_and_the_environment_is_read_with_its_types(tmp_path):
    from host.app import create_app
    from host.auth import ratelimit
    from host.config import load_settings

    (tmp_path / "sitehost.toml").write_text(f'database_url = "sqlite:///{tmp_path / "site.db"}"\n'
                                            '[auth]\nmax_failures = 3\nadmin_login = "head"\n')
    settings = load_settings(tmp_path / "sitehost.toml", env={"SITEHOST_AUTH__SLOW_SECONDS": "0.5"},
                             only_plugins=["core"])
    app = create_app(settings)
    try:
        limits = ratelimit.limits(app)
        assert (limits.max_failures, limits.slow_seconds, limits.lockout_seconds) == (3, 0.5, 900)
        assert any("login 'head'" in line for line in app.install_site())
    finally:
        app.close()
