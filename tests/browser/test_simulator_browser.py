"""The simulator page in a real headless Chromium: a game from nothing until the first trick is won.

Everything a player types goes into a phone's text box; the page signs it as Twilio or
Mailgun would and posts it to the real webhook; a real Celery worker decides and
"sends" to the local outbox; the page shows each message in the phone it was sent to.
After every move, each phone must show exactly the messages the service addressed to
its number, and the player to move must have just been prompted. The last view is
saved as a screenshot: to ``$SLOWSPADES_SCREENSHOT`` when set (``docs/simulator.png`` refreshes the
README's picture), else into the test's temporary directory, so a test run leaves the tree clean.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from chat.messages import replies_for
from service import conversation_port as port
from spades.commands import Bid, Command, DeclineDoubleNil, Discard, Exchange, Keep
from spades.events import from_dict
from spades.game import Game, fold, legal_moves, view
from tests.waiting import wait_for

pytestmark = pytest.mark.browser

PHONE_A, PHONE_B, EMAIL = "+15550001001", "+15550001002", "carol@example.com"
WHATSAPP, TELEGRAM = "whatsapp:+15550001003", "telegram:5550001004"
SCREENSHOT_ENV = "SLOWSPADES_SCREENSHOT"
DEVICE = {PHONE_A: "#phone-a", PHONE_B: "#phone-b", EMAIL: "#inbox", WHATSAPP: "#whatsapp", TELEGRAM: "#telegram"}


def shown(page: Any, address: str) -> list[str]:
    """The texts of the messages the service sent, as shown in that device."""
    return page.locator(f"{DEVICE[address]} .msg.in .body").all_inner_texts()


def sent_to(live: Any, address: str) -> list[str]:
    """The texts the service sent to ``address`` (the local outbox)."""
    return [m["body"] for _i, m in live.svc.store.read_local(count=10_000) if m["to"] == address]


def type_into(page: Any, address: str, text: str) -> None:
    """Type a message into a phone and send it; wait until the webhook has answered 200."""
    box = page.locator(f"{DEVICE[address]} form [name=body]")
    n = page.locator(f"{DEVICE[address]} .msg.out").count()
    box.fill(text)
    box.press("Enter")
    bubble = page.locator(f"{DEVICE[address]} .msg.out").nth(n)
    wait_for(f"{text!r} to be accepted", lambda: bubble.get_attribute("data-status") not in (None, "pending"))
    assert bubble.get_attribute("data-status") == "200", bubble.inner_text()


def game_of(live: Any, game_id: str) -> Game:
    return fold(from_dict(se.event) for se in live.svc.store.load(game_id))


def settled(live: Any, game_id: str, version: int) -> bool:
    """The game has passed ``version`` and every message it caused has been handed to the local outbox."""
    store = live.svc.store
    if store.version(game_id) <= version:
        return False
    return all(e["status"] == "sent" for e in store.outbox_entries(f"g:{game_id}"))


def phones_match_outbox(page: Any, live: Any, addresses: tuple[str, ...]) -> None:
    """Each device shows exactly what the service sent to its address, in order."""
    for address in addresses:
        wait_for(f"{address}'s device to show what was sent to it",
                 lambda a=address: shown(page, a) == sent_to(live, a) and sent_to(live, a))


def choose(game: Game, seat: int, keep: bool) -> Command:
    """A legal move, as a player in a hurry would make it."""
    legal = legal_moves(game, seat)
    if any(isinstance(c, DeclineDoubleNil) for c in legal):
        return DeclineDoubleNil(seat)
    if any(isinstance(c, Keep) for c in legal):
        return Keep(seat) if keep else Discard(seat)
    if any(isinstance(c, Exchange) for c in legal):
        return Exchange(seat, ())
    if any(isinstance(c, Bid) for c in legal):
        return Bid(seat, 3)
    return legal[0]


def open_simulator(chromium: Any, live: Any) -> Any:
    page = chromium.new_page(viewport={"width": 1480, "height": 900})
    page.goto(live.url + "/simulator/")
    page.wait_for_selector("#phone-a .address")
    page.wait_for_function("() => document.body.dataset.polled === '1'")  # a function: no eval under the CSP
    assert page.inner_text("#phone-a .address") == PHONE_A
    assert page.inner_text("#phone-b .address") == PHONE_B
    assert page.inner_text("#inbox .address") == EMAIL
    assert page.inner_text("#whatsapp .address") == WHATSAPP
    assert page.inner_text("#telegram .address") == TELEGRAM
    return page


@pytest.mark.slow
def test_two_phones_play_until_the_first_trick_is_won(chromium: Any, live_service: Any, tmp_path: Path) -> None:
    live = live_service
    page = open_simulator(chromium, live)
    try:
        type_into(page, PHONE_A, f"NEW {PHONE_B}")
        wait_for("the invitation", lambda: shown(page, PHONE_B))
        phones_match_outbox(page, live, (PHONE_A, PHONE_B))
        games = live.svc.players.games(PHONE_B)
        assert len(games) == 1
        game_id = games[0]
        assert page.locator("#phone-b .msg.in").first.get_attribute("data-game") == game_id

        type_into(page, PHONE_B, "YES")
        wait_for("the game to start", lambda: settled(live, game_id, 0))
        phones_match_outbox(page, live, (PHONE_A, PHONE_B))
        seats = live.svc.store.meta(game_id)
        address_of = {0: seats["seat0"], 1: seats["seat1"]}
        assert set(address_of.values()) == {PHONE_A, PHONE_B}

        moves = 0
        out_of_turn: set[int] = set()  # the seats that drew twice in a row while the other could draw too
        last_seat = None
        while sum(game_of(live, game_id).tricks_won) == 0:
            game = game_of(live, game_id)
            movers_before = game.movers
            assert movers_before
            # the simultaneous draw (RULES D11): each phone makes three decisions in a row while the other waits
            seat = movers_before[(moves // 3) % len(movers_before)]
            if len(movers_before) == 2 and seat == last_seat:
                out_of_turn.add(seat)
            last_seat = seat
            mover = address_of[seat]
            before = {a: len(shown(page, a)) for a in (PHONE_A, PHONE_B)}
            command = choose(game, seat, keep=moves % 3 != 2)
            version = game.version
            type_into(page, mover, port.command_text(command))
            wait_for(f"move {moves + 1} to be applied", lambda v=version: settled(live, game_id, v))
            phones_match_outbox(page, live, (PHONE_A, PHONE_B))
            after = game_of(live, game_id)
            # prompted: the player who moved, if they still may, and whoever may move now and could not before
            for s in (s for s in after.movers if s == seat or s not in movers_before):
                nxt = address_of[s]
                assert len(shown(page, nxt)) > before[nxt], f"{nxt} was not prompted after {command}"
                assert shown(page, nxt)[-1] == sent_to(live, nxt)[-1]
            moves += 1
            assert moves < 80, "the first trick took far too many moves"
        assert out_of_turn == {0, 1}  # both phones drew out of turn

        final = game_of(live, game_id)
        assert sum(final.tricks_won) == 1
        winner = address_of[0 if final.tricks_won[0] else 1]
        # the winner leads the next trick: their phone holds the prompt to do so
        assert view(final, 0 if winner == address_of[0] else 1).my_turn
        assert shown(page, winner)[-1] == sent_to(live, winner)[-1]
        segs = page.locator("#phone-a .msg.in").first.get_attribute("data-segments")
        assert segs is not None and int(segs) >= 1
        assert "segment" in page.locator("#phone-a .msg.in .meta").first.inner_text()
        # the inbox works alongside: a question by email is answered by email
        type_into(page, EMAIL, "HELP")
        wait_for("the emailed answer", lambda: shown(page, EMAIL))
        phones_match_outbox(page, live, (EMAIL,))
        type_into(page, WHATSAPP, "HELP")  # and the WhatsApp phone (the picture shows all five)
        wait_for("the WhatsApp answer", lambda: shown(page, WHATSAPP))
        phones_match_outbox(page, live, (WHATSAPP,))
        type_into(page, TELEGRAM, "NEW")  # and the Telegram phone: a link for a friend
        wait_for("the Telegram answer", lambda: shown(page, TELEGRAM))
        assert "/i/" in shown(page, TELEGRAM)[0]
        shot = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "simulator.png")
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000  # a real picture of the page, not an empty frame
    finally:
        page.close()


def test_email_player_accepts_from_the_inbox(chromium: Any, live_service: Any) -> None:
    live = live_service
    page = open_simulator(chromium, live)
    try:
        type_into(page, PHONE_A, f"NEW {EMAIL}")
        wait_for("the emailed invitation", lambda: shown(page, EMAIL))
        phones_match_outbox(page, live, (PHONE_A, EMAIL))
        invite = page.locator("#inbox .msg.in").first
        reply_to = page.locator("#inbox .msg.in .headers").first.inner_text().removeprefix("Reply-To: ")
        assert reply_to.startswith("play+")
        # the reply goes to the game's own reply address, prefilled from the invitation
        assert page.input_value("#inbox form [name=to]") == reply_to
        assert invite.get_attribute("data-game")
        type_into(page, EMAIL, "YES")
        game_id = live.svc.players.games(EMAIL)[0]
        wait_for("the game to start", lambda: settled(live, game_id, 0))
        phones_match_outbox(page, live, (PHONE_A, EMAIL))
        assert live.svc.store.meta(game_id)["status"] == "active"
        assert len(shown(page, PHONE_B)) == 0
    finally:
        page.close()


def test_the_header_names_the_numbers_of_the_phones_shown(chromium: Any, live_service: Any) -> None:
    """Issue 14 case 11: the header named fixed numbers (``NEW +15550001002``) whatever the phones were."""
    page = chromium.new_page(viewport={"width": 1480, "height": 900})
    try:
        page.goto(live_service.url + "/simulator/?phone-a=%2B4791234567&phone-b=%2B306912345678")
        page.wait_for_selector("#phone-a .address")
        page.wait_for_function("() => document.getElementById('start-hint').textContent !== 'NEW …'")
        assert page.inner_text("#start-hint") == "NEW +306912345678"
        assert page.inner_text("#start-from") == "Phone A (+4791234567)"
        assert "+15550001002" not in page.inner_text("header.bar")
    finally:
        page.close()


def test_the_whatsapp_phone_shows_its_window(chromium: Any, live_service: Any) -> None:
    """The WhatsApp phone beside the SMS phones: its window closed until it writes, then open (and when it closes);
    the answer is one WhatsApp message; the clock moved on a day, closed again."""
    live = live_service
    page = open_simulator(chromium, live)
    try:
        window = page.locator("#whatsapp header .window")
        wait_for("the window shown closed", lambda: window.inner_text() == "window closed")
        type_into(page, WHATSAPP, "HELP")
        wait_for("the answer by WhatsApp", lambda: shown(page, WHATSAPP))
        phones_match_outbox(page, live, (WHATSAPP,))
        answer = page.locator("#whatsapp .msg.in").first
        assert answer.get_attribute("data-parts") == "1" and answer.get_attribute("data-template") == ""
        assert "1 message" in page.locator("#whatsapp .msg.in .meta").first.inner_text()
        wait_for("the window shown open", lambda: window.get_attribute("data-open") == "1")
        assert window.inner_text().startswith("window open · closes in 2")  # 24:00 or 23:59
        page.select_option("#clock-step", "86400")
        page.click("#clock-advance")
        wait_for("the window shown closed a day later", lambda: window.inner_text() == "window closed")
        assert len(shown(page, PHONE_A)) == 0 and len(shown(page, PHONE_B)) == 0
    finally:
        page.close()


@pytest.mark.slow
def test_the_telegram_phone_plays_by_tapping_its_buttons(chromium: Any, live_service: Any) -> None:
    """The Telegram phone: what is typed goes to ``POST /telegram`` as Telegram's update (with the secret header);
    the bot's messages come with their inline keyboard as buttons; a tap posts the callback_query and plays the
    move, its answer shown under the message and the keyboard gone."""
    live = live_service
    page = open_simulator(chromium, live)
    try:
        type_into(page, TELEGRAM, f"NEW {PHONE_A}")
        wait_for("the invitation", lambda: shown(page, PHONE_A))
        [game_id] = live.svc.players.games(PHONE_A)
        assert "tg..1004" in shown(page, PHONE_A)[0]  # the chat id never shown whole to the opponent
        type_into(page, PHONE_A, "YES")
        wait_for("the game to start", lambda: settled(live, game_id, 0))
        seat = 0 if live.svc.store.meta(game_id)["seat0"] == TELEGRAM else 1
        taps = 0
        while taps < 5:
            game = game_of(live, game_id)
            if seat not in game.movers:  # Phone A's turn: typed
                type_into(page, PHONE_A, port.command_text(choose(game, 1 - seat, keep=True)))
                wait_for("phone A's move", lambda v=game.version: settled(live, game_id, v))
                continue
            keyboards = page.locator("#telegram .msg.in .keyboard")
            wait_for("a keyboard to tap", lambda: keyboards.count() == 1)
            number = page.locator("#telegram .msg.in:has(.keyboard)").get_attribute("data-message-id")
            message = page.locator(f'#telegram .msg.in[data-message-id="{number}"]')  # the same, once tapped
            buttons = keyboards.locator("button")
            offered = [b.get_attribute("data-data").split("|", 1)[1] for b in buttons.all()]
            assert offered == list(replies_for(view(game, seat), "en"))  # a button for every answer of the question
            buttons.first.click()  # one tap, one move
            wait_for(f"tap {taps + 1} to be played", lambda v=game.version: settled(live, game_id, v))
            wait_for("the tap answered", lambda: message.locator(".toast").count() == 1)
            assert message.locator(".toast").inner_text().startswith("✓ ")
            assert message.locator(".keyboard").count() == 0  # its keyboard removed
            taps += 1
        assert not [m for m in sent_to(live, TELEGRAM) if not m]  # every message to the chat had its text
    finally:
        page.close()


def test_the_whatsapp_phone_taps_a_button_and_the_move_is_played(chromium: Any, live_service: Any) -> None:
    """Inside the window a WhatsApp prompt shows its answers as buttons (issue 43); tapping one posts its id as Twilio
    does (``ButtonPayload``, ``ListId``), and the move is played: the next prompt comes with its own buttons."""
    live = live_service
    page = open_simulator(chromium, live)
    try:
        type_into(page, WHATSAPP, f"NEW {PHONE_A}")
        wait_for("the invitation", lambda: shown(page, PHONE_A))
        type_into(page, PHONE_A, "YES")
        [game_id] = live.svc.players.games(WHATSAPP)
        wait_for("the game started", lambda: live.svc.store.meta(game_id).get("status") == "active"
                 and settled(live, game_id, 0))
        seat = 0 if live.svc.store.meta(game_id)["seat0"] == WHATSAPP else 1
        while seat not in (game := game_of(live, game_id)).movers:  # phone A's moves until the WhatsApp phone owes one
            type_into(page, PHONE_A, port.command_text(choose(game, 1 - seat, keep=True)))
            wait_for("phone A's move", lambda v=game.version: settled(live, game_id, v))
        buttons = page.locator("#whatsapp .msg.in .wa-buttons").last.locator(".wa-button")
        wait_for("the question's buttons", lambda: buttons.all_inner_texts() in (["DN", "DRAW"], ["K", "D"]))
        before = buttons.all_inner_texts()
        version = live.svc.store.version(game_id)
        buttons.nth(1).click()  # DRAW, or D
        wait_for("the tap played", lambda: live.svc.store.version(game_id) > version)
        assert page.locator("#whatsapp .msg.out").last.inner_text().startswith(before[1])
        asked = page.locator("#whatsapp .msg.in .wa-buttons")
        wait_for("the next question's buttons", lambda: asked.count() > 1 and asked.last.locator(".wa-button")
                 .all_inner_texts() == ["K", "D"])
        phones_match_outbox(page, live, (WHATSAPP, PHONE_A))
    finally:
        page.close()
