"""The linked channels' store (service.store.links) against a real Redis and a real Redis Cluster: a code taken once,
wrong codes counted and locked, an expired code refused, both sides of a link written and removed, and the route's
order (VIA first, then link order, STOP dropped)."""

from __future__ import annotations

from typing import Any

from service.channels import candidates
from service.records import Route
from service.store.links import Links
from tests.backends import BOTH

pytestmark = BOTH

HOME, PHONE, MAIL = "+15551230001", "+15551230009", "ana@example.com"
NOW = 1_800_000_000_000


def test_right_code_links_once_and_only_its_address(redis_client: Any) -> None:
    links = Links(redis_client)
    code = links.new_code(HOME, MAIL, NOW, 900)
    assert len(code) == 6 and code.isdigit()
    assert links.take_code(PHONE, code, NOW, 5).status == "none"  # another address: nothing pending there
    check = links.take_code(MAIL, code, NOW + 1000, 5)
    assert (check.status, check.home) == ("ok", HOME)
    assert links.home(MAIL) == HOME and links.home(HOME) == HOME
    assert links.add_link(HOME, MAIL) and not links.add_link(HOME, MAIL)  # once
    assert links.linked(HOME) == [HOME, MAIL]
    assert links.take_code(MAIL, code, NOW + 2000, 5).status == "linked"  # used up; the address acts for HOME already
    assert links.pending(MAIL) == {}


def test_wrong_codes_lock_and_an_expired_code_links_nothing(redis_client: Any) -> None:
    links = Links(redis_client)
    code = links.new_code(HOME, MAIL, NOW, 900)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    assert [links.take_code(MAIL, wrong, NOW, 3).status for _ in range(3)] == ["wrong", "wrong", "locked"]
    assert links.take_code(MAIL, code, NOW, 3).status == "locked"  # the right code too, once locked
    assert links.home(MAIL) == MAIL and links.linked(HOME) == [HOME]
    code = links.new_code(HOME, PHONE, NOW, 900)
    assert links.take_code(PHONE, code, NOW + 901_000, 3).status == "expired"
    assert links.home(PHONE) == PHONE


def test_unlink_removes_both_sides_and_the_route_orders_via_first(redis_client: Any) -> None:
    links = Links(redis_client)
    for other in (PHONE, MAIL):
        assert links.take_code(other, links.new_code(HOME, other, NOW, 900), NOW, 5).status == "ok"
        links.add_link(HOME, other)
    assert links.linked(HOME) == [HOME, PHONE, MAIL]
    links.set_via(HOME, "email")
    assert [d.address for d in candidates(links.route(HOME))] == [MAIL, HOME, PHONE]
    links.set_off(HOME, MAIL, True)  # the email address sent STOP: the others, in link order
    assert [d.address for d in candidates(links.route(HOME))] == [HOME, PHONE]
    assert links.unlink(HOME, MAIL) and not links.unlink(HOME, MAIL)
    assert links.home(MAIL) == MAIL and links.linked(HOME) == [HOME, PHONE]
    assert links.route(HOME) == Route(HOME, (PHONE,), frozenset(), False, "email")
