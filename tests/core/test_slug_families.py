"""Unique slugs at a cost that does not grow: a create reads a slug's family in one query,
and still picks the name WordPress's probing of -2, -3 ... would pick."""

from __future__ import annotations

import itertools

import pytest

from host.testing import recorded_statements, role_users

from tests.core.helpers import API


@pytest.fixture
def site(make_app):
    """Only the content plugin, so that no other plugin's statements count."""
    app = make_app(plugins=["core"])
    return app, role_users(app)["editor"].headers


def _statements(app):
    """Every SQL statement the app's engine runs inside the block, but the stored renderings' batched write:
    it joins whichever request finds the batch due by time (plugins/core/store/rendered.py), not the create's."""
    return recorded_statements(app, lambda statement: "rendered_content" not in statement)


def _create(app, editor, base="posts", expect=201, **fields):
    fields.setdefault("status", "publish")
    return app.client.post_json(f"{API}/{base}", fields, headers=editor, status=expect).json


def _batch_create(app, editor, bodies: list[dict], base="posts") -> list[dict]:
    requests = [{"path": f"/core/v2/{base}", "body": {"status": "publish", **body}} for body in bodies]
    answers = app.client.post_json("/wp-json/batch/v1", {"requests": requests}, headers=editor,
                                   status=207).json["responses"]
    assert [answer["status"] for answer in answers] == [201] * len(bodies)
    return [answer["body"] for answer in answers]


def test_a_create_runs_as_many_statements_with_300_items_of_its_title_as_with_none(site):
    app, editor = site
    _create(app, editor, title="Warm up")  # first-request work (settings, caches) is not the slug's
    with _statements(app) as alone:
        first = _create(app, editor, title="Weekly newsletter")
    for start in range(0, 300, 25):
        made = _batch_create(app, editor, [{"title": "Weekly newsletter"}] * 25)
        assert [item["slug"] for item in made] == [f"weekly-newsletter-{number}"
                                                   for number in range(start + 2, start + 27)]
    with _statements(app) as crowded:
        last = _create(app, editor, title="Weekly newsletter")
    assert (first["slug"], last["slug"]) == ("weekly-newsletter", "weekly-newsletter-302")
    assert len(crowded) == len(alone), (alone, crowded)
    listed = app.client.get(f"{API}/posts", {"slug": "weekly-newsletter-302"}).json
    assert [item["id"] for item in listed] == [last["id"]]


def test_a_batch_of_one_title_reads_the_family_once(site):
    app, editor = site
    _batch_create(app, editor, [{"title": "Assembly"}] * 25)
    with _statements(app) as one_taken:
        made = _batch_create(app, editor, [{"title": "Assembly"}] * 25)
    assert [item["slug"] for item in made] == [f"assembly-{number}" for number in range(26, 51)]
    with _statements(app) as many_taken:
        _batch_create(app, editor, [{"title": "Assembly"}] * 25)
    assert len(many_taken) == len(one_taken)


def test_a_gap_left_by_a_deleted_or_trashed_item_is_filled_first_as_wordpress_does(site):
    app, editor = site
    made = [_create(app, editor, title="Open day") for _ in range(5)]
    assert [item["slug"] for item in made] == ["open-day", "open-day-2", "open-day-3", "open-day-4", "open-day-5"]
    app.client.delete(f"{API}/posts/{made[1]['id']}", {"force": "true"}, headers=editor, status=200)
    trashed = app.client.delete(f"{API}/posts/{made[3]['id']}", headers=editor, status=200).json
    assert trashed["slug"] == "open-day-4__trashed"
    assert _create(app, editor, title="Open day")["slug"] == "open-day-2"
    assert _create(app, editor, title="Open day")["slug"] == "open-day-4"
    assert _create(app, editor, title="Open day")["slug"] == "open-day-6"
    app.client.delete(f"{API}/posts/{made[0]['id']}", {"force": "true"}, headers=editor, status=200)
    assert _create(app, editor, title="Open day")["slug"] == "open-day"  # the bare name first, when free


def test_suffixes_wordpress_would_never_make_do_not_count(site):
    app, editor = site
    # Neither a zero first, letters, an exponent, a point nor a number past 64 bits is a suffix WordPress writes.
    for slug in ("term-07", "term-3b", "term-0", "terms-9", "term-9x", "term-1e5", "term-2-5",
                 "term-99999999999999999999", "term-9223372036854775808"):
        assert _create(app, editor, title="Other", slug=slug)["slug"] == slug
    assert [_create(app, editor, title="Term")["slug"] for _ in range(3)] == ["term", "term-2", "term-3"]


def test_a_batch_sees_the_names_given_before_it_as_one_create_after_another_would(site):
    app, editor = site
    _create(app, editor, title="Report")
    made = _batch_create(app, editor, [{"title": "Report"}, {"title": "Anything", "slug": "report-3"},
                                       {"title": "Report"}, {"title": "Report", "slug": "report-2"}])
    assert [item["slug"] for item in made] == ["report-2", "report-3", "report-4", "report-2-2"]


@pytest.mark.parametrize("length", [200, 195, 190, 189])
def test_a_title_too_long_for_its_suffix_is_cut_as_wordpress_cuts_it(site, length):
    app, editor = site
    title = ("a" * 9 + "b") * 20
    slug = title[:length]
    made = [_create(app, editor, title="Long", slug=slug)["slug"] for _ in range(12)]
    expected = [slug] + [slug[: 200 - len(f"-{number}")] + f"-{number}" for number in range(2, 13)]
    assert made == expected
    assert all(len(name) <= 200 for name in made)


def test_pages_count_suffixes_per_parent_and_reserved_names_start_at_2(site):
    app, editor = site
    parent = _create(app, editor, base="pages", title="Clubs")
    other = _create(app, editor, base="pages", title="Events")
    under_parent = [_create(app, editor, base="pages", title="Chess", parent=parent["id"])["slug"] for _ in range(3)]
    under_other = [_create(app, editor, base="pages", title="Chess", parent=other["id"])["slug"] for _ in range(2)]
    assert under_parent == ["chess", "chess-2", "chess-3"] and under_other == ["chess", "chess-2"]
    assert [_create(app, editor, base="pages", title="2024")["slug"] for _ in range(2)] == ["2024-2", "2024-3"]
    assert [_create(app, editor, title="Feed")["slug"] for _ in range(2)] == ["feed-2", "feed-3"]
    assert _create(app, editor, title="2024")["slug"] == "2024"  # posts may be numbers


def test_an_explicit_numbered_slug_is_kept_and_the_gaps_below_it_are_filled_in_order(site):
    app, editor = site
    assert [_create(app, editor, title="Sports day")["slug"] for _ in range(2)] == ["sports-day", "sports-day-2"]
    assert _create(app, editor, title="Other", slug="sports-day-7")["slug"] == "sports-day-7"
    made = [_create(app, editor, title="Sports day")["slug"] for _ in range(6)]
    assert made == ["sports-day-3", "sports-day-4", "sports-day-5", "sports-day-6", "sports-day-8", "sports-day-9"]
    assert _create(app, editor, title="Other", slug="sports-day-7")["slug"] == "sports-day-7-2"


def test_percent_and_underscore_in_a_title_are_neither_kept_nor_read_as_patterns(site):
    """`%` and `_` would be LIKE's wildcards; the family is read by a range of names, so `50x-off-2` is
    not taken for a `50-off` suffix."""
    app, editor = site
    assert _create(app, editor, title="Other", slug="50x-off-2")["slug"] == "50x-off-2"
    made = [_create(app, editor, title="50% off_the price")["slug"] for _ in range(3)]
    assert made == ["50-off-the-price", "50-off-the-price-2", "50-off-the-price-3"]
    made = [_create(app, editor, title="50_off")["slug"] for _ in range(3)]
    assert made == ["50-off", "50-off-2", "50-off-3"]
    listed = app.client.get(f"{API}/posts", {"slug": "50-off-3"}).json
    assert [item["title"]["rendered"] for item in listed] == ["50_off"]


def test_a_term_slug_family_is_read_in_one_query_however_many_terms_share_it(site):
    app, editor = site
    _create(app, editor, base="tags", name="Warm up")
    with _statements(app) as alone:
        first = _create(app, editor, base="tags", name="Club 0", slug="club")
    made = [_create(app, editor, base="tags", name=f"Club {number}", slug="club")["slug"] for number in range(1, 40)]
    assert first["slug"] == "club" and made == [f"club-{number}" for number in range(2, 41)]
    with _statements(app) as crowded:
        last = _create(app, editor, base="tags", name="Club 40", slug="club")
    assert last["slug"] == "club-41"
    assert len(crowded) == len(alone), (alone, crowded)
    app.client.delete(f"{API}/tags/{_tag_id(app, 'club-6')}", {"force": "true"}, headers=editor, status=200)
    assert _create(app, editor, base="tags", name="Club 41", slug="club")["slug"] == "club-6"


def _tag_id(app, slug: str) -> int:
    return app.client.get(f"{API}/tags", {"slug": slug}).json[0]["id"]


def test_a_child_category_takes_its_parents_slug_before_a_number_as_wordpress_does(site):
    app, editor = site
    clubs = _create(app, editor, base="categories", name="Clubs")
    _create(app, editor, base="categories", name="Chess")
    child = _create(app, editor, base="categories", name="Chess", parent=clubs["id"])
    assert child["slug"] == "chess-clubs"
    assert _create(app, editor, base="categories", name="Chess!", parent=clubs["id"])["slug"] == "chess-2"


def test_user_slugs_count_up_in_one_query_and_underscore_matches_only_itself(site):
    app, _editor = site
    admin = role_users(app)["administrator"].headers
    numbers = itertools.count()

    def add(login: str) -> str:
        return app.client.post_json(f"{API}/users", {"username": login, "email": f"person{next(numbers)}@school.test",
                                                     "password": "a long enough password"},
                                    headers=admin, status=201).json["slug"]

    assert [add(login) for login in ("a_b", "axb", "axb.")] == ["a_b", "axb", "axb-2"]
    assert add("a_b.") == "a_b-2"
    with _statements(app) as few:
        add("ann")
    made = [add("ann" + "." * dots) for dots in range(1, 30)]
    assert made == [f"ann-{number}" for number in range(2, 31)]
    with _statements(app) as many:
        assert add("ann@") == "ann-31"
    assert len(many) == len(few), (few, many)
