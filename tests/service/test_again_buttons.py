"""A finished game's page offers to play again (issue 46): ``REMATCH`` at the same level or one level harder against
the computer, ``REMATCH`` against a person, and a new game against the computer, each a plain form handled by the
worker exactly as the typed words are, through the real webhook, the page's forms and a real Celery worker."""

from __future__ import annotations

import re
import time
from typing import Any

from service.games.levels import level_of
from service.web.game import form_token

from .helpers import local_messages
from .test_plans_sms import send
from .test_record import new_game, resign
from .test_sms_game import ALICE, BOB

CSRF = re.compile(r'<form method="post" action="([^"]+/again)"><input type="hidden" name="csrf" value="([^"]+)">')
SAME_ORIGIN = {"Origin": "null", "Sec-Fetch-Site": "same-origin"}  # as Chromium posts the page's own forms


def buttons(client: Any, token: str) -> tuple[str, str, list[str]]:
    """The finished game's form (its action and form token) and the buttons' values on the page of ``token``."""
    page = client.get(f"/g/{token}").get_data(as_text=True)
    found = CSRF.search(page)
    assert found, "no buttons to play again"
    section = page.split('<section id="again"')[1].split("</section>")[0]
    return found.group(1), found.group(2), re.findall(r'name="again" value="(\w+)"', section)


def alices_token(svc: Any, gid: str) -> str:
    seat = 0 if svc.store.meta(gid)["seat0"] == ALICE else 1
    return str(svc.players.ensure_web_token(gid, seat))


def opponent(svc: Any, gid: str) -> str:
    meta = svc.store.meta(gid)
    return str(meta["seat1"] if meta["seat0"] == ALICE else meta["seat0"])


def test_rematch_one_level_harder_and_a_new_bot_game_from_a_finished_page(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    svc.config["BOT_DELAY"] = 0  # the computer's move at once: none left waiting its delay when the test ends
    send(client, svc, ALICE, "NEW BOT EASY")
    [first] = svc.players.games(ALICE)
    token = alices_token(svc, first)
    assert 'id="again"' not in client.get(f"/g/{token}").get_data(as_text=True)  # under way: no buttons
    resign(client, svc, ALICE)
    action, csrf, values = buttons(client, token)
    assert values == ["rematch", "harder", "bot"], values
    for forged, headers in (({"again": "harder"}, SAME_ORIGIN), ({"csrf": csrf, "again": "harder"},
                            {"Origin": "https://evil.example"})):
        assert client.post(action, data=forged, headers=headers).status_code == 403
    resp = client.post(action, data={"csrf": csrf, "again": "nonsense"}, headers=SAME_ORIGIN)
    assert resp.status_code == 303 and "m=illegal" in resp.headers["Location"]
    assert svc.players.games(ALICE) == [first]  # nothing recorded, nothing started
    resp = client.post(action, data={"csrf": csrf, "again": "harder"}, headers=SAME_ORIGIN)
    assert resp.status_code == 303
    games = svc.players.games(ALICE)
    assert len(games) == 2 and level_of(opponent(svc, games[0])) == "normal", games
    assert resp.headers["Location"].endswith(f"/g/{alices_token(svc, games[0])}")  # Ana's own page of the new game
    again = client.post(action, data={"csrf": csrf, "again": "harder"}, headers=SAME_ORIGIN)  # the form sent twice
    assert again.status_code == 303 and len(svc.players.games(ALICE)) == 2  # one game
    resign(client, svc, ALICE)  # the second game over: its own page's buttons, a new game against the computer
    action, csrf, values = buttons(client, alices_token(svc, games[0]))
    assert values == ["rematch", "harder", "bot"]
    client.post(action, data={"csrf": csrf, "again": "bot"}, headers=SAME_ORIGIN)
    newest = svc.players.games(ALICE)[0]
    assert len(svc.players.games(ALICE)) == 3 and level_of(opponent(svc, newest)) == "normal"
    assert svc.store.meta(newest)["status"] == "active"
    resign(client, svc, ALICE)
    action, csrf, values = buttons(client, alices_token(svc, newest))
    client.post(action, data={"csrf": csrf, "again": "harder"}, headers=SAME_ORIGIN)  # normal -> hard
    hardest = svc.players.games(ALICE)[0]
    assert level_of(opponent(svc, hardest)) == "hard"
    resign(client, svc, ALICE)
    assert buttons(client, alices_token(svc, hardest))[2] == ["rematch", "bot"]  # no level past the hardest


def test_rematch_a_person_from_the_page_invites_them(client, svc, celery_worker) -> None:  # type: ignore[no-untyped-def]
    send(client, svc, ALICE, "NAME Ana")
    first = new_game(client, svc, f"NEW {BOB}")
    token = alices_token(svc, first)
    assert 'id="again"' not in client.get(f"/g/{token}").get_data(as_text=True)
    resign(client, svc, BOB)
    action, csrf, values = buttons(client, token)
    assert values == ["rematch", "bot"], values
    before = len(local_messages(svc, BOB))
    resp = client.post(action, data={"csrf": csrf, "again": "rematch"}, headers=SAME_ORIGIN)
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/g/{token}?again=invited#again")
    assert "Your invitation to " in client.get(resp.headers["Location"]).get_data(as_text=True)
    invited = [m["body"] for m in local_messages(svc, BOB)[before:]]
    assert any("Ana" in b and "YES" in b for b in invited), invited
    before = len(local_messages(svc, ALICE))
    later = form_token(svc.store, token, int(time.time()) - 60)  # the page loaded again later: another REMATCH
    other = client.post(action, data={"csrf": later, "again": "rematch"}, headers=SAME_ORIGIN)
    assert other.headers["Location"].endswith("?again=refused#again")  # told on the page, and why by message
    assert "No new game started" in client.get(other.headers["Location"]).get_data(as_text=True)
    [why] = [m["body"] for m in local_messages(svc, ALICE)[before:]]
    assert "Bo" in why or BOB[-4:] in why, why
    assert len(svc.players.games(ALICE)) == 2
