"""Smoke test: a complete game between two simple choosers ends (RULES.md sections 3 to 9)."""

from spades.commands import Bid, DeclareDoubleNil, DeclineDoubleNil
from spades.dealer import Dealer
from spades.game import decide, fold, legal_moves, new_game


def test_a_complete_game_ends_sections_3_to_9() -> None:
    dealer = Dealer(seed=3)
    game = fold(new_game("g", dealer=dealer))
    while game.phase != "over" and game.hand_no < 200:
        seat = game.movers[0]  # RULES D11: in a simultaneous draw either may move; take the first
        move = legal_moves(game, seat)[0]
        if isinstance(move, DeclareDoubleNil):
            move = DeclineDoubleNil(seat)
        if isinstance(move, Bid):
            move = Bid(seat, 4)
        for event in decide(game, move, dealer):
            game.apply(event)
    assert game.hand_no >= 1
