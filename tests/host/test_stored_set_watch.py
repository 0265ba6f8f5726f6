"""The serve loop's watch of the plugin set stored for the site (host.serving.StoredSetWatch)."""

from __future__ import annotations

from host.serving import StoredSetWatch


def test_a_read_that_fails_is_no_change_and_the_next_good_read_is_none_either():
    answers = iter(['["oembed"]', OSError("connection refused"), '["oembed"]', '["oembed","spam"]'])

    def read():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    watch = StoredSetWatch(read)
    watch.start()
    assert watch.changed() == ""  # the database refused one connection: no reload
    assert watch.changed() == ""  # and none when it answers the same set again
    assert watch.changed() == StoredSetWatch.REASON  # a real change still reloads


def test_a_site_without_a_stored_set_never_reloads_for_it():
    watch = StoredSetWatch(None)
    watch.start()
    assert watch.changed() == ""


def test_the_reader_keeps_one_connection_across_polls_and_sees_each_change(make_app):
    """`sitehost serve` polls every second: one kept connection, not an engine and a connection per poll."""
    import json
    import os

    from sqlalchemy import event

    from host.plugin_state import StoredPluginSetReader, change_plugin

    app = make_app()
    reader = StoredPluginSetReader(app.settings.resolved_database_url())
    connects = []
    event.listen(reader.engine, "connect", lambda *_args: connects.append(1))
    try:
        first = reader()
        assert first is None or json.loads(first) == []
        for _poll in range(5):
            assert reader() == first
        change_plugin(app.settings, app.db.engine, "oembed", enable=False)
        assert json.loads(reader()) == ["oembed"]
        # a forked worker forgets the connection without closing it: the parent's keeps working
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        assert json.loads(reader()) == ["oembed"]
        assert len(connects) == 1
    finally:
        reader.close()


def test_the_reader_of_a_database_without_tables_answers_none(tmp_path):
    from host.plugin_state import StoredPluginSetReader

    reader = StoredPluginSetReader(f"sqlite:///{tmp_path}/empty.db")
    try:
        assert reader() is None
    finally:
        reader.close()
