"""Playing from the private game page without JavaScript (issue 23): the page asks the question the game asks
now, with its legal answers as plain forms; a move posted there is recorded and applied as an SMS is (303 back
to the page); a form without the page's form token, or sent from another site, is refused and nothing is
recorded; a move answering a question the game no longer asks, or an illegal one, is refused with a friendly
message and nothing applied; while a player is on the page the game sends them no SMS, and once they left, the
prompt they owe goes by SMS with what happened meanwhile; names are escaped."""

from __future__ import annotations

import re
from typing import Any

from service import after
from service.conversation_port import command_text
from service.games.players import name_of
from service.store import clock, owner_keys, player_owner
from service.web.game import form_token
from spades.game import view

from .chooser import choose
from .helpers import local_messages, post_sms, wait_handled, wait_outbox_settled
from .test_game_page import DANA, start_email_game
from .test_sms_game import ALICE, BOB, load_game, start_sms_game

FORM = re.compile(r'name="csrf" value="([^"]+)"><input type="hidden" name="ask" value="([^"]+)"')


def page_of(client: Any, token: str, asks: bool = True) -> tuple[str, str, str]:
    """The page's HTML, its form token and the question its forms answer (``asks``: it must show one)."""
    resp = client.get(f"/g/{token}")
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    m = FORM.search(page)
    assert m or not asks, page
    return page, m.group(1) if m else "", m.group(2) if m else ""


def draw_by_sms(client: Any, svc: Any, gid: str) -> Any:
    """The hand's draw made by SMS (no double nil, every card kept): the game after it."""
    for _ in range(200):
        game = load_game(svc, gid)
        if game.phase != "draw":
            return game
        mover = game.movers[0]
        resp, mid = post_sms(client, (ALICE, BOB)[mover], "DRAW" if view(game, mover).double_nil_offer else "KEEP")
        wait_handled(svc, mid)
    raise AssertionError("the draw did not end")


def events_of(svc: Any, gid: str) -> list[dict[str, Any]]:
    return [e.event for e in svc.store.load(gid)]


def test_a_draw_made_on_the_page_without_javascript(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    wait_outbox_settled(svc)
    game = load_game(svc, gid)
    seat = game.first_player  # the first to draw: the double nil question, then the cards
    token = svc.players.ensure_web_token(gid, seat)
    address = (ALICE, BOB)[seat]
    page, csrf, ask = page_of(client, token)
    assert "Double nil?" in page and 'value="DN"' in page and 'value="DRAW"' in page
    assert '<form class="move" method="post" action="/g/' in page and "<script src=" in page
    sms_before = len(local_messages(svc, address))
    resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "DRAW"})
    assert resp.status_code == 303 and resp.headers["Location"] == f"/g/{token}#ask"
    assert load_game(svc, gid).version > game.version
    assert events_of(svc, gid)[game.version]["type"] == "double_nil_declined"
    page, csrf, ask = page_of(client, token)
    offered = view(load_game(svc, gid), seat).offered
    assert offered is not None and "Keep" in page and 'value="KEEP"' in page and 'value="DISCARD"' in page
    version = load_game(svc, gid).version
    resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "KEEP"})
    assert resp.status_code == 303
    assert load_game(svc, gid).hands[seat] == [offered]
    # the same form sent again (a double click, a browser's retry): one move
    again = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "KEEP"})
    assert again.status_code == 303 and load_game(svc, gid).version == version + 1
    wait_outbox_settled(svc)
    assert len(local_messages(svc, address)) == sms_before  # moved on the page: no SMS about it


def test_forged_forms_are_refused_and_nothing_is_recorded(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    seat = load_game(svc, gid).first_player
    token = svc.players.ensure_web_token(gid, seat)
    other = svc.players.ensure_web_token(gid, 1 - seat)
    _page, csrf, ask = page_of(client, token)
    csrf_other = form_token(svc.store, other)  # the other seat's page's own form token
    version = load_game(svc, gid).version
    forged = [
        ({"ask": ask, "move": "DRAW"}, {}),  # no form token: a form on another site
        ({"csrf": csrf_other, "ask": ask, "move": "DRAW"}, {}),  # the other page's token
        ({"csrf": csrf[:-1] + ("0" if csrf[-1] != "0" else "1"), "ask": ask, "move": "DRAW"}, {}),
        ({"csrf": "1." + csrf.partition(".")[2], "ask": ask, "move": "DRAW"}, {}),  # an old time with its MAC
        ({"csrf": csrf, "ask": ask, "move": "DRAW"}, {"Origin": "https://evil.example"}),
        ({"csrf": csrf, "ask": ask, "move": "DRAW"}, {"Sec-Fetch-Site": "cross-site"}),
        # a sandboxed frame on another site posts with Origin: null too, and the browser says it is cross-site
        ({"csrf": csrf, "ask": ask, "move": "DRAW"}, {"Origin": "null", "Sec-Fetch-Site": "cross-site"}),
        ({"ask": ask, "move": "DRAW"}, {"Origin": "null", "Sec-Fetch-Site": "same-origin"}),  # no form token
    ]
    for form, headers in forged:
        resp = client.post(f"/g/{token}/move", data=form, headers=headers)
        assert resp.status_code == 403, (form, headers)
        assert "nothing was played" in resp.get_data(as_text=True)
    assert client.post(f"/g/{'0' * 32}/move", data={"csrf": csrf, "ask": ask, "move": "DRAW"}).status_code == 404
    assert load_game(svc, gid).version == version
    assert not [k for k in svc.redis.scan_iter("*:in:page:*")]  # nothing recorded
    # the page's own form, as Chromium posts it under the page's Referrer-Policy: no-referrer (issue 45 case 1)
    resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "DRAW"},
                       headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})
    assert resp.status_code == 303 and load_game(svc, gid).version > version


def test_a_stale_or_illegal_move_is_refused_on_the_page(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    seat = load_game(svc, gid).first_player
    token = svc.players.ensure_web_token(gid, seat)
    address = (ALICE, BOB)[seat]
    _page, csrf, ask = page_of(client, token)
    resp, mid = post_sms(client, address, "DRAW")  # answered by SMS meanwhile: the page's question is gone
    wait_handled(svc, mid)
    version = load_game(svc, gid).version
    resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "DN"})
    assert resp.status_code == 303 and resp.headers["Location"] == f"/g/{token}?m=stale#ask"
    page = client.get(resp.headers["Location"].partition("#")[0]).get_data(as_text=True)
    assert "The game moved on before your move arrived: nothing was played." in page
    assert 'role="alert"' in page and load_game(svc, gid).version == version
    _page, csrf, ask = page_of(client, token)
    theirs = load_game(svc, gid).hands[1 - seat]
    for move in ("BID 4", "AS" if not theirs else theirs[0].code, "SWAP AS", "RESIGN", "<b>"):
        resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": move})
        assert resp.headers["Location"] == f"/g/{token}?m=illegal#ask", move
    page = client.get(f"/g/{token}?m=illegal").get_data(as_text=True)
    assert "That move is not allowed now: nothing was played." in page
    assert load_game(svc, gid).version == version


def test_on_the_page_no_sms_then_the_prompt_with_what_happened(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    wait_outbox_settled(svc)
    game = draw_by_sms(client, svc, gid)
    first = game.to_move
    assert first is not None
    second = 1 - first
    token = svc.players.ensure_web_token(gid, second)
    page, _csrf, _ask = page_of(client, token, asks=False)  # the second bidder opens their page: they are on it
    assert 'id="ask"' not in page
    wait_outbox_settled(svc)
    sms_before = len(local_messages(svc, (ALICE, BOB)[second]))
    resp, mid = post_sms(client, (ALICE, BOB)[first], "BID 3")  # their turn comes while on the page
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    assert len(local_messages(svc, (ALICE, BOB)[second])) == sms_before
    page, _csrf, _ask = page_of(client, token)
    assert "Your bid?" in page and 'value="BID 0"' in page  # the page asks it, nil among the answers
    # they close the page without bidding: once its mark ends, the prompt goes by SMS, saying what happened
    clock.advance(svc.redis, 120)
    after.tick(svc.config, svc.store, svc.steps,
               after.Outlets(lambda ids: after.deliver_local_many(svc.config, svc.store, ids), lambda turn: None))
    wait_outbox_settled(svc)
    got = local_messages(svc, (ALICE, BOB)[second])[sms_before:]
    assert len(got) == 1 and "bid 3" in got[0]["body"].lower() and "your bid?" in got[0]["body"].lower(), got


def test_names_on_the_page_are_escaped(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    hostile = '<script>alert("x")</script>&<img src=x onerror=alert(1)>'
    # a name NAME would refuse, written straight into the record (an old record, an operator's edit)
    svc.redis.hset(owner_keys(player_owner(ALICE))["meta"], "name", hostile)
    token = svc.players.ensure_web_token(gid, 1)
    page, _csrf, _ask = page_of(client, token, asks=False)
    assert name_of(svc.players, ALICE) == hostile
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;&lt;img src=x onerror=alert(1)&gt;" in page


def test_an_email_player_plays_from_the_page_and_gets_no_email(client, svc, smtp_server, celery_worker) -> None:  # type: ignore[no-untyped-def]
    dana = DANA
    gid, _invite = start_email_game(client, svc, smtp_server)
    seat = svc.store.meta(gid)["seat0"] == dana and 0 or 1
    token = svc.store.meta(gid)[f"web{seat}"]
    for _ in range(6):  # answer whatever the page asks, six times, as the game lets this player move
        game = load_game(svc, gid)
        if not game.may_move(seat):
            resp, mid = post_sms(client, ALICE, command_text(choose(game, 1 - seat)))
            wait_handled(svc, mid)
            wait_outbox_settled(svc)
            continue
        mails = len([m for _f, rcpts, m in smtp_server.messages if dana in rcpts])
        page, csrf, ask = page_of(client, token)
        move = re.search(r'<button type="submit" name="move" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": move})
        assert resp.status_code == 303 and "?m=" not in resp.headers["Location"], resp.headers["Location"]
        assert load_game(svc, gid).version > game.version
        wait_outbox_settled(svc)
        assert len([m for _f, rcpts, m in smtp_server.messages if dana in rcpts]) == mails  # no email about it


def test_double_nil_and_its_swap_from_the_page(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    seat = load_game(svc, gid).first_player
    token = svc.players.ensure_web_token(gid, seat)
    _page, csrf, ask = page_of(client, token)
    assert client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "DN"}).status_code == 303
    assert [e["type"] for e in events_of(svc, gid)].count("double_nil_declared") == 1
    game = draw_by_sms(client, svc, gid)
    assert game.phase == "exchange" and game.movers == (seat,)
    page, csrf, ask = page_of(client, token)
    hand = [c.code for c in game.hands[seat]]
    assert "Your swap" in page and page.count('type="checkbox" name="card"') == 13 and 'value="SWAP"' in page
    for cards in (hand[:4], [hand[0], hand[0]], [c.code for c in game.hands[1 - seat]][:1]):  # too many, twice, not held
        resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "SWAP", "card": cards})
        assert resp.headers["Location"].endswith("?m=illegal#ask"), cards
    resp = client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "SWAP", "card": hand[:2]})
    assert resp.headers["Location"] == f"/g/{token}#ask"
    swapped = [e for e in events_of(svc, gid) if e["type"] == "cards_exchanged"]
    assert len(swapped) == 1 and sorted(swapped[0]["thrown"]) == sorted(hand[:2])


def test_a_move_from_the_page_quiets_the_game_for_some_minutes(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    seat = draw_by_sms(client, svc, gid).to_move  # bids first, then leads the first trick
    assert seat is not None
    me, other = (ALICE, BOB)[seat], (ALICE, BOB)[1 - seat]
    token = svc.players.ensure_web_token(gid, seat)
    _page, csrf, ask = page_of(client, token)
    assert client.post(f"/g/{token}/move", data={"csrf": csrf, "ask": ask, "move": "BID 4"}).status_code == 303
    wait_outbox_settled(svc)
    before = len(local_messages(svc, me))
    clock.advance(svc.redis, 60)  # the page is closed: only the move's mark is left (PAGE_QUIET_MINUTES, 5)
    resp, mid = post_sms(client, other, "BID 2")  # their turn to lead comes a minute after their page move
    wait_handled(svc, mid)
    wait_outbox_settled(svc)
    outlets = after.Outlets(lambda ids: after.deliver_local_many(svc.config, svc.store, ids), lambda turn: None)
    after.tick(svc.config, svc.store, svc.steps, outlets)
    assert len(local_messages(svc, me)) == before  # within the mark: nothing by SMS
    clock.advance(svc.redis, 5 * 60)  # past it: the prompt they owe, saying what happened meanwhile
    after.tick(svc.config, svc.store, svc.steps, outlets)
    wait_outbox_settled(svc)
    got = [m["body"] for m in local_messages(svc, me)[before:]]
    assert len(got) == 1 and got[0].startswith("Bids: you 4, +1..000") and " 2. " in got[0] and "Lead" in got[0], got


def test_without_javascript_a_waiting_page_reloads_itself(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    gid = start_sms_game(client, svc)
    first = load_game(svc, gid).first_player
    waiting = svc.players.ensure_web_token(gid, 1 - first)  # the double nil choice is the first player's
    page, _csrf, _ask = page_of(client, waiting, asks=False)
    assert '<noscript><meta http-equiv="refresh" content="15"></noscript>' in page
    page, _csrf, _ask = page_of(client, svc.players.ensure_web_token(gid, first))
    assert 'http-equiv="refresh"' not in page  # never while the player is choosing
