"""SMS segments per hand, per language: complete games between two players through the conversation layer.

First the HELP reply and the welcome (the first SMS a new number gets) of every language, with their length and
segments (goal: one segment each, issue 28), and the first message of a game against the computer before and since
it names its level (issue 25). Then the games: players are ``spades.bots`` ``basic`` bots when that
module exists, else random legal replies (seeded). Every message both players receive is rendered as an SMS
(``chat.simulate``) and its segments counted, and any SMS that is not GSM-7. The games are played as the service
plays them (a simultaneous draw, forced cards played for the player, a decided hand played out, the hand's summary
sent with the double nil question: ``bench/pace.py``'s "after"); ``--alternate`` plays the draw in strict
alternation without autoplay (the service before issue 11). Usage:
``python bench/segments.py [games] [--no-dn-question] [--alternate]``.
Goals: as the service plays, <= 52 a hand in every language (issue 28; 50 games as bench/pace.py plays them),
0 non-GSM-7; alternating, <= 64 (issue 14).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chat.gsm import is_gsm7
from chat.languages import LANGUAGES
from chat.render import render
from chat.simulate import play_game, random_chooser

#: How the service plays (bench/pace.py's "after"), and how it played before issue 11.
SERVICE = {"simultaneous_draw": True, "autoplay": (True, True), "finish": True, "merge_summary": True}
ALTERNATE: dict = {}


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


def first_messages() -> None:
    """The HELP reply and the welcome of every language: characters and segments."""
    print(f"{'lang':5} {'HELP':>12} {'welcome':>12}   (characters/segments)")
    for lang in LANGUAGES:
        sizes = [render(name, lang, "sms") for name in ("help", "welcome")]
        print(f"{lang:5}" + "".join(f" {f'{len(r.text)}/{r.segments}':>12}" for r in sizes))
    print()


def first_against_computer() -> None:
    """The first message of a game against the computer (``NEW BOT``, the ``normal`` level), as before the levels
    (no level named) and now (the level and the three NEW BOT commands): the turn prompt when the player draws
    first, the start alone when the computer does (it makes its double nil choice first). Characters/segments."""
    from chat.messages import prompt
    from spades.dealer import Dealer
    from spades.events import redact
    from spades.game import fold, new_game, view

    print(f"{'lang':5} {'player first':>20} {'computer first':>20}   (before -> now, characters/segments)")
    for lang in LANGUAGES:
        cells = []
        for first in (0, 1):  # the player is seat 0
            seed = next(s for s in range(100) if Dealer(seed=s).first_player() == first)
            events = new_game("first", dealer=Dealer(seed=seed))
            game = fold(events)
            sizes = []
            for level in (None, "normal"):
                if first == 0:
                    r = prompt(view(game, 0), lang, "sms", [redact(e, 0) for e in events], "Bot", "", level)
                else:
                    r = render("game_started", lang, "sms", label="", opp="Bot", first="opp", target=500, level=level)
                sizes.append(f"{len(r.text)}/{r.segments}")
            cells.append(" -> ".join(sizes))
        print(f"{lang:5}" + "".join(f" {c:>20}" for c in cells))
    print()


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv and argv[0].isdigit() else 5
    ask = "--no-dn-question" not in argv
    mode = ALTERNATE if "--alternate" in argv else SERVICE
    first_messages()
    first_against_computer()
    chooser, who = _chooser(0)
    # random bidders rarely reach 500: play a fixed number of hands per game then
    max_hands = None if who.startswith("spades.bots") else 6
    print(f"{games} games per language, players: {who}, DN question: {'asked' if ask else 'off (auto DRAW)'}, "
          f"{'draw in strict alternation, no autoplay' if mode is ALTERNATE else 'as the service plays'}")
    print(f"{'lang':5} {'hands':>6} {'msgs/hand':>10} {'seg/hand':>9} {'max seg/msg':>12} {'2-seg msgs':>11}"
          f" {'non-GSM-7':>10}")
    for lang in LANGUAGES:
        hands = segs = msgs = two = non_gsm = 0
        worst = 0
        per_hand = []
        for g in range(games):
            chooser, who = _chooser(1000 + g)
            t = play_game(1000 + g, langs=(lang, lang), names=("Alexandrina", "Konstantinos"), chooser=chooser,
                          ask_dn=(ask, ask), labels=("#12", "#3"), max_hands=max_hands, **mode)
            s = [m.rendered.segments for m in t.messages]
            t.hands = len(t.game.history) if t.game else t.hands
            hands += t.hands
            segs += sum(s)
            msgs += len(s)
            two += sum(1 for x in s if x > 1)
            non_gsm += sum(1 for m in t.messages if not is_gsm7(m.rendered.text))
            worst = max(worst, max(s))
            per_hand.append(sum(s) / max(t.hands, 1))
        print(f"{lang:5} {hands:6d} {msgs / hands:10.1f} {segs / hands:9.2f} {worst:12d} {two:11d} {non_gsm:10d}"
              f"   (per game: {statistics.mean(per_hand):.1f} +- {statistics.pstdev(per_hand):.1f})")


if __name__ == "__main__":
    main(sys.argv[1:])
