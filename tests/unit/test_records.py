"""The typed records the store hands out (:mod:`service.records`): parsed once, read-only, as JSON and as a copy what
the hash was, and no address in their repr (a record logged by mistake names nobody)."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from service.games.seats import computer_at, opponent_of, seat_of
from service.records import GameMeta, PlayerRecord, Route

ANN, BOB = "+15550100001", "ann@example.com"
RAW = {"seat0": ANN, "seat1": BOB, "status": "active", "created": "1700000000000", "held": "1700000500000",
       "expires": "1700600000000", "web1": "tok-b", "pv": "3"}


def test_a_game_meta_parses_its_fields_once_with_their_types() -> None:
    meta = GameMeta(RAW)
    assert meta.status == "active" and meta.unfinished and not meta.over and meta.exists
    assert meta.seats == (ANN, BOB)
    assert (meta.created_ms, meta.held_until, meta.expires_ms, meta.ended_ms) == (1700000000000, 1700000500000,
                                                                                  1700600000000, 0)
    assert meta.of_seat("web", 1) == "tok-b" and meta.of_seat("web", 0) == ""
    assert not meta.archived and meta["pv"] == "3"  # a field with no property of its own, read as in the hash


def test_a_missing_game_is_an_empty_meta_with_no_seat() -> None:
    meta = GameMeta()
    assert not meta.exists and meta.status == "" and not meta.unfinished and meta.seats == ("", "")
    assert seat_of(meta, "") is None and seat_of(meta, ANN) is None  # an empty seat is nobody's


def test_seat_questions_read_the_typed_seats() -> None:
    meta = GameMeta({**RAW, "seat1": "bot:basic"})
    assert seat_of(meta, ANN) == 0 and seat_of(meta, "bot:basic") == 1 and seat_of(meta, BOB) is None
    assert opponent_of(meta, 0) == "bot:basic" and computer_at(meta, 1) and not computer_at(meta, 0)


def test_a_record_is_read_only_and_updated_gives_a_new_one() -> None:
    meta = GameMeta(RAW)
    for change in (lambda: meta.__setitem__("status", "over"), lambda: meta.update(status="over"),
                   lambda: meta.pop("status"), lambda: meta.clear(), lambda: meta.setdefault("x", "1")):
        with pytest.raises(TypeError, match="read-only"):
            change()
    over = meta.updated({"status": "over", "ended": "1700700000000"})
    assert over.over and over.ended_ms == 1700700000000 and over.seats == (ANN, BOB)
    assert meta.status == "active"  # the first untouched
    mutable = meta.as_dict()
    mutable["status"] = "over"
    assert meta.status == "active" and mutable["status"] == "over"


def test_a_record_is_what_its_hash_was_as_json_as_a_copy_and_through_pickle() -> None:
    meta = GameMeta(RAW)
    assert meta == RAW and json.loads(json.dumps(meta)) == RAW and {**meta} == RAW
    for again in (pickle.loads(pickle.dumps(meta)), copy.deepcopy(meta), copy.copy(meta)):
        assert isinstance(again, GameMeta) and again == RAW and again.seats == (ANN, BOB)
    rec = PlayerRecord(ANN, {"name": "Ann", "lang": "fr"})
    again = pickle.loads(pickle.dumps(rec))
    assert isinstance(again, PlayerRecord) and again.address == ANN and again.name == "Ann"


def test_no_address_in_a_record_s_repr() -> None:
    for shown in (repr(GameMeta(RAW)), str(GameMeta(RAW)), repr(PlayerRecord(ANN, {"links": BOB}))):
        assert ANN not in shown and BOB not in shown


def test_a_player_record_types_its_settings_and_its_route() -> None:
    rec = PlayerRecord(ANN, {"name": "Ann", "lang": "fr", "stopped": "1", "last": "g7", "autoplay": "0",
                             "links": f"{BOB} whatsapp:{ANN}", "off": f"whatsapp:{ANN}", "g:g7": "2"})
    assert (rec.name, rec.lang, rec.stopped, rec.last, rec.known) == ("Ann", "fr", True, "g7", True)
    assert rec.flag("autoplay", True) is False and rec.flag("hints", True) is True
    assert rec.number_of("g7") == 2 and rec.number_of("g8") is None
    assert rec.route == Route(ANN, (BOB, f"whatsapp:{ANN}"), frozenset({f"whatsapp:{ANN}"}), True)
    assert rec.route.reachable() == [BOB]  # the home sent STOP, one linked address did too
    unknown = PlayerRecord(BOB)
    assert not unknown.known and unknown.name == "" and not unknown.stopped and unknown.route.reachable() == [BOB]
