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
