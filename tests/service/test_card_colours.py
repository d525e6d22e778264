"""The card colours of a player's game pages (issue 46): ``POST /g/<token>/colours`` keeps two or four colours as the
player's choice (their record), shown on their pages and not on the other player's; a form without the page's form
token or from another site is refused (403) and nothing is stored; a value the page never offers changes nothing."""

from __future__ import annotations

from typing import Any

from service.web.game import form_token

from .test_game_page_play import page_of
from .test_sms_game import ALICE, BOB, load_game, start_sms_game

FOUR = '<main class="four">'


def test_four_colours_are_kept_for_the_player_and_forged_forms_refused(client: Any, svc: Any, celery_worker: Any) -> None:
    gid = start_sms_game(client, svc)
    seat = load_game(svc, gid).first_player
    me, them = (ALICE, BOB)[seat], (ALICE, BOB)[1 - seat]
    token = svc.players.ensure_web_token(gid, seat)
    other = svc.players.ensure_web_token(gid, 1 - seat)
    page = page_of(client, token, asks=False)[0]
    csrf = form_token(svc.store, token)  # the form token the page carries
    assert f'action="/g/{token}/colours"' in page and FOUR not in page and 'value="2" aria-pressed="true"' in page
    forged = [
        ({"colours": "4"}, {}),  # no form token
        ({"csrf": form_token(svc.store, other), "colours": "4"}, {}),  # the other page's
        ({"csrf": csrf, "colours": "4"}, {"Origin": "https://evil.example"}),
        ({"csrf": csrf, "colours": "4"}, {"Origin": "null", "Sec-Fetch-Site": "cross-site"}),
    ]
    for form, headers in forged:
        resp = client.post(f"/g/{token}/colours", data=form, headers=headers)
        assert resp.status_code == 403, (form, headers)
        assert "nothing was played" in resp.get_data(as_text=True)
    assert "colours" not in svc.players.get(me)
    resp = client.post(f"/g/{token}/colours", data={"csrf": csrf, "colours": "9"})  # never offered: nothing stored
    assert resp.status_code == 303 and "colours" not in svc.players.get(me)
    resp = client.post(f"/g/{token}/colours", data={"csrf": csrf, "colours": "4"},
                       headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})  # as Chromium posts the page's form
    assert resp.status_code == 303 and resp.headers["Location"] == f"/g/{token}#colours"
    page = page_of(client, token, asks=False)[0]
    assert FOUR in page and 'value="4" aria-pressed="true"' in page
    assert FOUR not in page_of(client, other, asks=False)[0] and "colours" not in (svc.players.get(them) or {})
    client.post(f"/g/{token}/colours", data={"csrf": csrf, "colours": "2"})
    assert FOUR not in page_of(client, token, asks=False)[0]
