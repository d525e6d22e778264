"""A move's messages composed from data alone (``service.games.turns.turn_messages`` over a
:class:`service.games.known.Known`, issue 42's pure compose): two SMS players through a whole hand, no server. What
they would notice: each move tells the player who is to move that it is their turn, only the players' own numbers
are written to, and no text to a player ever names a card the opponent still holds (RULES: a player's hidden cards
never reach the other player)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.config import load_config
from service.games.known import Known, NotRead
from service.games.players import PlayerInfo
from service.games.turns import turn_messages
from service.records import GameMeta, PlayerRecord
from spades import bots
from spades.events import HandScored
from spades.game import decide, fold, new_game, view

from .table import dealer

ANN, BOB = "+15550100001", "+15550100002"
GID = "unitcompose1"
RANK = r"(?:10|[2-9JQKA])"
CARD = re.compile(rf"\b{RANK}[SHDC]\b")  # a card as the texts name one (QH, 10S)
SUIT_GROUP = re.compile(rf"\b([SHDC]):((?:{RANK} ?)+)")  # a hand as the texts list it (S:A 10 8 H:K Q)


def cards_named(text: str) -> set[str]:
    """Every card a text names, one by one or in a hand's listing."""
    named = set(CARD.findall(text))
    for suit, ranks in SUIT_GROUP.findall(text):
        named |= {rank + suit for rank in re.findall(RANK, ranks)}
    return named


def _config() -> dict[str, Any]:
    return load_config({}, {"PUBLIC_BASE_URL": "https://spades.example.test", "TWILIO_FROM": "+15550000000",
                            "SMS_FICTIONAL_NUMBERS": True})


def _known(config: dict[str, Any], meta: GameMeta, stored: list[Any]) -> Known:
    infos = {a: PlayerInfo(a, PlayerRecord(a, {"kind": "sms", "lang": "en"}), "en", labels={GID: ""})
             for a in meta.seats}
    return Known(config, GID, meta, infos, now_ms=1_800_000_000_000, first=0, stored=list(stored))


def test_cards_named_reads_single_cards_and_a_hand_s_listing() -> None:
    assert cards_named("You won AD v 4D. S:A 10 8 H:K Q. Play: QD 8D") == {"AD", "4D", "AS", "10S", "8S", "KH",
                                                                          "QH", "QD", "8D"}


def test_a_hand_composed_from_data_tells_the_mover_and_never_names_the_opponent_s_hidden_cards() -> None:
    config = _config()
    started = new_game(GID, None, dealer(GID, 0))
    game = fold(started)
    stored: list[Any] = list(started)
    meta = GameMeta({"seat0": ANN, "seat1": BOB, "status": "active", "web0": "page-a", "web1": "page-b",
                     "seen0": str(game.version), "seen1": str(game.version)})
    players = (bots.get("basic", seed=1), bots.get("basic", seed=2))
    told = {ANN: 0, BOB: 0}
    own_cards_seen = 0
    while not any(isinstance(e, HandScored) for e in stored):
        seat = game.movers[0]
        events = decide(game, players[seat].choose(view(game, seat)), dealer(GID, game.version))
        for e in events:
            game.apply(e)
        updates: dict[str, str] = {}
        appended, entries = turn_messages(_known(config, meta, stored), dealer, game, events, updates, actor=seat)
        assert {e["to"] for e in entries} <= {ANN, BOB}
        for entry in entries:
            reader = meta.seats.index(entry["to"])
            told[entry["to"]] += 1
            named = cards_named(entry["body"])
            opponent_holds = {c.code for c in game.hands[1 - reader]}  # after the move: what is still unplayed
            assert not named & opponent_holds, (entry["body"], named & opponent_holds)
            own_cards_seen += bool(named & {c.code for c in game.hands[reader]})
        if game.movers:  # whoever is to move now is told so (in a simultaneous draw, at least one of them)
            assert any(meta.seats[s] in {e["to"] for e in entries} for s in game.movers), (game.movers, entries)
        stored.extend(appended)
        meta = meta.updated(updates)
    assert told[ANN] > 13 and told[BOB] > 13
    assert own_cards_seen > 13  # the check reads the texts' cards: each player is shown their own hand


def test_what_the_move_did_not_read_is_refused_never_read() -> None:
    """Compose asks only what the move read: a player, a game number, a page token or events it did not read raise
    :class:`NotRead` (there is no store to fall back on)."""
    meta = GameMeta({"seat0": ANN, "seat1": BOB, "status": "active"})
    known = _known(_config(), meta, [])
    with pytest.raises(NotRead):
        known.lang("+15550100009")
    with pytest.raises(NotRead):
        known.label(ANN, "another-game")
    with pytest.raises(NotRead):
        known.web_token(ANN, GID, 0, meta, None)  # the meta holds no page token and none was made
    with pytest.raises(NotRead):
        known.stored_since(0, 5)
    assert known.lang(ANN) == "en" and known.label(ANN, GID) == ""
