"""Links with live tokens in mails are built on the site's address, never on the Host a sign-up came with."""

from __future__ import annotations

from host.testing import TEST_SITE_ADDRESS

from .helpers import link_in, queued_mails, standard_site

ATTACKER = {"HTTP_HOST": "attacker.example"}


def _links(mail) -> list[str]:
    return [link_in(mail, "/newsletter/confirm"), link_in(mail, "/newsletter/unsubscribe"),
            mail["List-Unsubscribe"].strip("<>")]


def test_a_sign_up_with_a_foreign_host_is_mailed_links_on_the_site_address(make_app):
    site = standard_site(make_app(plugins=["core", "newsletter"]))
    site.sign_up("family", environ=ATTACKER, EMAIL="parent@example.org", FNAME="Sam")
    links = _links(queued_mails(site.app)[0])
    assert all(link.startswith(f"{TEST_SITE_ADDRESS}/newsletter/") for link in links), links
    assert not any("attacker.example" in link for link in links)


def test_an_address_chosen_in_the_settings_is_the_base_of_new_links(make_app):
    site = standard_site(make_app(plugins=["core", "newsletter"]))
    chosen = site.admin.post_json("/wp-json/core/v2/settings", {"url": "https://www.riverside.example/"}).json
    assert chosen["url"] == "https://www.riverside.example/"
    site.sign_up("family", environ=ATTACKER, EMAIL="parent@example.org", FNAME="Sam")
    assert all(link.startswith("https://www.riverside.example/newsletter/") for link in _links(queued_mails(site.app)[0]))
    # null gives the recorded address back
    assert site.admin.post_json("/wp-json/core/v2/settings", {"url": None}).json["url"] == TEST_SITE_ADDRESS
    site.sign_up("family", environ=ATTACKER, EMAIL="other@example.org", FNAME="Kim")
    assert all(link.startswith(f"{TEST_SITE_ADDRESS}/newsletter/") for link in _links(queued_mails(site.app)[1]))
