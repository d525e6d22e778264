"""Cards and parsing (RULES.md section 1; issue 2 "Cards"): codes, 10/T, case, spaces, symbols."""

from __future__ import annotations

import copy
import pickle

import pytest

from spades.cards import DECK, Card, Suit, card_of, parse_card, sorted_hand
from spades.commands import Play
from spades.errors import CardNotInHand, CardSyntaxError, RuleError

from .helpers import SUITED, to_play


def test_section_1_deck_has_52_distinct_cards_ace_high() -> None:
    assert len(DECK) == 52 and len({c.code for c in DECK}) == 52
    assert card_of(14, Suit.SPADES).code == "AS" and card_of(10, Suit.HEARTS).code == "10H"
    assert max(c.rank for c in DECK) == 14 and min(c.rank for c in DECK) == 2


def test_section_1_cards_are_canonical_instances() -> None:
    ace = Card(14, Suit.SPADES)
    assert ace is DECK[12] and ace == parse_card("as") and hash(ace) == hash(Card.from_code("AS"))
    assert copy.deepcopy(ace) is ace and pickle.loads(pickle.dumps(ace)) is ace
    with pytest.raises(CardSyntaxError):
        Card(15, Suit.SPADES)


@pytest.mark.parametrize("text,code", [
    ("QH", "QH"), ("qh", "QH"), (" 10s ", "10S"), ("TS", "10S"), ("ts", "10S"), ("10 s", "10S"),
    ("♥Q", "QH"), ("Q♥", "QH"), ("q ♥", "QH"), ("♠10", "10S"), ("10♠", "10S"), ("♦t", "10D"), ("2♣", "2C"),
    ("H Q", "QH"), ("s10", "10S"), ("A♠️", "AS"), ("♥️K", "KH"), ("\tJd\n", "JD"),
])
def test_parse_card_accepts_every_spelling_issue_2(text: str, code: str) -> None:
    assert parse_card(text).code == code


@pytest.mark.parametrize("text", ["", "  ", "XZ", "11H", "1H", "QQ", "10", "H", "AS KS", "ace of spades", "Q♥♠"])
def test_parse_card_rejects_text_that_is_not_a_card_issue_2(text: str) -> None:
    with pytest.raises(CardSyntaxError) as info:
        parse_card(text)
    assert not isinstance(info.value, RuleError)


def test_parse_card_language_suit_letters_issue_2() -> None:
    assert parse_card("Qk", {"K": Suit.HEARTS}).code == "QH"


def test_syntax_error_is_not_a_rule_error_section_6() -> None:
    """A card that is not a card is a CardSyntaxError; a real card not in hand is a RuleError."""
    game, _ = to_play(SUITED["S"], SUITED["H"])
    with pytest.raises(CardNotInHand) as info:
        from spades.game import decide
        decide(game, Play(game.to_move, parse_card("2D")))  # type: ignore[arg-type]
    assert not isinstance(info.value, CardSyntaxError) and "2D" in str(info.value)


def test_sorted_hand_display_order() -> None:
    hand = sorted_hand([parse_card(c) for c in ("2C", "AS", "3H", "KS", "AD")])
    assert [c.code for c in hand] == ["AS", "KS", "3H", "2C", "AD"]
