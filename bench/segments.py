"""SMS segments per hand, per language: complete games between two players through the conversation layer.

Players are ``spades.bots`` ``basic`` bots when that module exists, else random legal replies
(seeded). Every message both players receive is rendered as an SMS (``chat.simulate``) and its
segments counted, and any SMS that is not GSM-7. Usage: ``python bench/segments.py [games] [--no-dn-question]``.
Goal: <= 64 a hand (issue 14: no language above 59.8, 0 non-GSM-7).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chat.gsm import is_gsm7
from chat.languages import LANGUAGES
from chat.simulate import play_game, random_chooser


def _chooser(seed: int):
    """Each seat's reply: what a ``basic`` bot would do, written as the offered reply that means it."""
    try:
        from spades import bots

        strategies = {0: bots.get("basic", seed), 1: bots.get("basic", seed + 1)}
    except (ImportError, KeyError):  # no spades.bots, or no basic strategy in it: random legal replies
        return random_chooser, "random legal replies"
    from chat.parse import parse

    def choose(view, msg, rng):
        cmd = strategies[view.seat].choose(view)
        for reply in msg.replies:
            if any(parse(reply, lang).command(view.seat, view.phase) == cmd for lang in LANGUAGES):
                return reply
        raise AssertionError(f"the bot's move {cmd} is not among the replies offered")

    return choose, "spades.bots basic"


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv and argv[0].isdigit() else 5
    ask = "--no-dn-question" not in argv
    chooser, who = _chooser(0)
    # random bidders rarely reach 500: play a fixed number of hands per game then
    max_hands = None if who.startswith("spades.bots") else 6
    print(f"{games} games per language, players: {who}, DN question: {'asked' if ask else 'off (auto DRAW)'}")
    print(f"{'lang':5} {'hands':>6} {'msgs/hand':>10} {'seg/hand':>9} {'max seg/msg':>12} {'2-seg msgs':>11}"
          f" {'non-GSM-7':>10}")
    for lang in LANGUAGES:
        hands = segs = msgs = two = non_gsm = 0
        worst = 0
        per_hand = []
        for g in range(games):
            chooser, who = _chooser(1000 + g)
            t = play_game(1000 + g, langs=(lang, lang), names=("Alexandrina", "Konstantinos"), chooser=chooser,
                          ask_dn=(ask, ask), labels=("#12", "#3"), max_hands=max_hands)
            s = [m.rendered.segments for m in t.messages]
            t.hands = len(t.game.history) if t.game else t.hands
            hands += t.hands
            segs += sum(s)
            msgs += len(s)
            two += sum(1 for x in s if x > 1)
            non_gsm += sum(1 for m in t.messages if not is_gsm7(m.rendered.text))
            worst = max(worst, max(s))
            per_hand.append(sum(s) / max(t.hands, 1))
        print(f"{lang:5} {hands:6d} {msgs / hands:10.1f} {segs / hands:9.1f} {worst:12d} {two:11d} {non_gsm:10d}"
              f"   (per game: {statistics.mean(per_hand):.1f} +- {statistics.pstdev(per_hand):.1f})")


if __name__ == "__main__":
    main(sys.argv[1:])
