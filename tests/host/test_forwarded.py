"""X-Forwarded-For, -Proto and -Host are believed only from `trusted_proxies`.

From a configured balancer they give the client's address (sign-in limits, comments, logs) and the
scheme and host of the request's own links; from anyone else they are ignored, and behind
balancers a request that reached a node around them never gets links built from its Host header.
"""

from __future__ import annotations

import pytest
from webtest import TestApp

from host.proxies import forwarded, parse_networks
from host.testing import TEST_SITE_ADDRESS, assert_rest_error, create_test_user

from tests.auth.helpers import basic

ME = "/wp-json/core/v2/users/me"
BALANCER = "10.0.0.7"
LIMITS = {"max_failures": 3, "max_failures_per_address": 5, "window_seconds": 600, "lockout_seconds": 300,
          "slow_after": 2, "slow_seconds": 0}


def peer(app, address, **headers):
    """A client connecting from `address`, sending `headers` (as environ keys) with every request."""
    environ = {"HTTP_HOST": "school.test", "REMOTE_ADDR": address}
    environ.update({"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()})
    return TestApp(app, extra_environ=environ)


@pytest.fixture
def balanced(make_app):
    return make_app(plugins=["core"], extra={"trusted_proxies": ["10.0.0.0/24", "fd00::/64"], "auth": LIMITS})


def test_the_client_is_read_from_the_right_past_trusted_hops_only():
    networks = parse_networks(["10.0.0.0/24", "fd00::/64"])

    def client(remote, chain):
        return forwarded({"REMOTE_ADDR": remote, "HTTP_X_FORWARDED_FOR": chain}, networks).client

    assert client(BALANCER, "203.0.113.5") == "203.0.113.5"
    # A forged entry on the left stays on the left; a second balancer in the chain is skipped.
    assert client(BALANCER, "1.2.3.4, 203.0.113.5, 10.0.0.8") == "203.0.113.5"
    assert client("fd00::9", "2001:db8::5") == "2001:db8::5"
    assert client("::ffff:10.0.0.7", "203.0.113.5") == "203.0.113.5"  # an IPv4 balancer on a dual-stack socket
    # From anyone else the header means nothing.
    assert client("198.51.100.9", "203.0.113.5") == "198.51.100.9"
    assert client(BALANCER, "") == BALANCER


def test_sign_in_failures_count_against_the_forwarded_client_only_through_a_balancer(balanced):
    victim = create_test_user(balanced, "editor")
    attacker = peer(balanced, BALANCER, x_forwarded_for="203.0.113.5")
    for _attempt in range(3):
        attacker.get(ME, headers=basic(victim.login, "guess"), status=401)
    assert_rest_error(attacker.get(ME, headers=victim.headers, status=429), "too_many_sign_in_attempts", 429)
    # Another client behind the same balancer is not refused: the balancer's address is not the client.
    assert peer(balanced, BALANCER, x_forwarded_for="203.0.113.6").get(ME, headers=victim.headers).json["id"] == \
        victim.id
    # A peer around the balancer cannot pose as someone else, nor dodge its own count by changing the header.
    other = create_test_user(balanced, "author")
    direct = "198.51.100.9"
    for forged in ("203.0.113.7", "203.0.113.8", "203.0.113.9"):
        peer(balanced, direct, x_forwarded_for=forged).get(ME, headers=basic(other.login, "guess"), status=401)
    assert_rest_error(peer(balanced, direct, x_forwarded_for="203.0.113.10").get(ME, headers=other.headers,
                                                                                 status=429),
                      "too_many_sign_in_attempts", 429)
    assert peer(balanced, BALANCER, x_forwarded_for="203.0.113.7").get(ME, headers=other.headers).json["id"] == \
        other.id


def test_a_comment_records_the_forwarded_address_only_from_a_balancer(balanced):
    admin = create_test_user(balanced, "administrator")
    post = balanced.client.post_json("/wp-json/core/v2/posts", {"title": "Open day", "status": "publish"},
                                     headers=admin.headers).json["id"]
    comment = {"post": post, "author_name": "Ann", "author_email": "ann@example.org", "content": "Lovely"}
    through = peer(balanced, BALANCER, x_forwarded_for="203.0.113.5").post_json(
        "/wp-json/core/v2/comments", comment, status=201).json["id"]
    around = peer(balanced, "198.51.100.9", x_forwarded_for="203.0.113.5").post_json(
        "/wp-json/core/v2/comments", {**comment, "content": "Lovely too"}, status=201).json["id"]
    ips = [balanced.client.get(f"/wp-json/core/v2/comments/{number}", {"context": "edit"},
                               headers=admin.headers).json["author_ip"] for number in (through, around)]
    assert ips == ["203.0.113.5", "198.51.100.9"]


def test_links_follow_the_balancers_scheme_and_host_and_never_an_outsiders_host(balanced):
    headers = {"x_forwarded_proto": "https", "x_forwarded_host": "www.school.example"}
    through = peer(balanced, BALANCER, **headers).get("/wp-json/").json
    assert through["url"] == "https://www.school.example"
    assert through["routes"]["/core/v2/posts"]["_links"]["self"][0]["href"] == \
        "https://www.school.example/wp-json/core/v2/posts"
    # The same headers from a peer around the balancer are ignored, and so is its Host.
    for outsider in (peer(balanced, "198.51.100.9", **headers),
                     TestApp(balanced, extra_environ={"HTTP_HOST": "evil.example", "REMOTE_ADDR": "198.51.100.9"})):
        answer = outsider.get("/wp-json/").json
        assert answer["url"] == TEST_SITE_ADDRESS
        assert "evil.example" not in str(answer) and "www.school.example" not in str(answer)
    # A balancer that forwards no X-Forwarded-Host vouches for the Host it sends; a bad one is not used.
    assert peer(balanced, BALANCER).get("/wp-json/").json["url"] == "http://school.test"
    for bad in ("a b/c", "evil.example:99999", "user@evil.example", "evil.example/path"):
        assert peer(balanced, BALANCER, x_forwarded_host=bad).get("/wp-json/").json["url"] == "http://school.test"


def test_without_trusted_proxies_no_forwarded_header_is_believed(make_app):
    app = make_app(plugins=["core"])
    lying = peer(app, BALANCER, x_forwarded_proto="https", x_forwarded_host="www.school.example",
                 x_forwarded_for="203.0.113.5")
    assert lying.get("/wp-json/").json["url"] == "http://school.test"
    assert forwarded({"REMOTE_ADDR": BALANCER, "HTTP_X_FORWARDED_FOR": "203.0.113.5"}, app.trusted_proxies).client \
        == BALANCER


def test_trust_proxy_true_trusts_this_machine_only(make_app):
    app = make_app(plugins=["core"], extra={"trust_proxy": True})
    local = peer(app, "127.0.0.1", x_forwarded_proto="https")
    assert local.get("/wp-json/").json["url"] == "https://school.test"
    assert forwarded({"REMOTE_ADDR": BALANCER, "HTTP_X_FORWARDED_FOR": "203.0.113.5"}, app.trusted_proxies).client \
        == BALANCER
