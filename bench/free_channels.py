"""What the free channels save (issue 43): a game's messages priced when a player is on Telegram or on the game page
with Web Push, and how many taps a move takes on Telegram.

The games, the players, the paces and the reminders are ``bench/cost.py``'s (the same seeds, ``bench/cost_model.py``):
each game is played once rendered for SMS and once for Telegram (the same moves), and priced per seat by the channel
that seat uses:

* ``sms``: every message to the player its segments at ``sms_out``, every message from them at ``sms_in``, the
  player's country's prices (``service/prices.toml``), reminders included;
* ``telegram``: the Bot API charges nothing per message, in or out (:data:`FREE`);
* ``page+push``: the player plays on the game page: every message the service sends them (prompts, notices,
  reminders) is a Web Push notification, which costs nothing, and every move comes from the page, which costs
  nothing either.

The pairings (:data:`PAIRINGS`): both on SMS (the reference), both on Telegram, both on the page, and the mixed
games, the first player on Telegram (or on the page) and the second by SMS: what such a game saves against the same
game with both by SMS.

Taps (:func:`taps`), on the Telegram games: every answer a player gave (plans aside) against the message that asked
for it, the last one to that player before it. A message whose answers fit an inline keyboard
(``service.telegram.buttons``: at most 40, each short enough for a button's data) is answered in **one tap** when
the answer given is one of its buttons; any other decision is typed (the exchange's many choices). Messages a hand
on Telegram (a text past 4,096 characters is several) against the same game's SMS messages; the Bot API calls a
hand besides (a tap is answered by ``answerCallbackQuery`` and its keyboard removed by ``editMessageReplyMarkup``:
two calls, no message).

Usage: ``python bench/free_channels.py [games] [--hands N]`` (3 games a language); ``bench/cost.py`` prints the same
tables after its own.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.cost_model import NUMBERS, PACES, Cost, Schedule, play, schedule
from chat.gsm import segments
from chat.languages import LANGUAGES
from chat.simulate import Transcript
from service.prices import Prices, country_of, load
from service.telegram import KEYBOARD_MAX, buttons

#: the channels that charge nothing per message, and why
FREE = {"telegram": "the Bot API charges nothing per message",
        "page+push": "a Web Push notification and a move from the page cost nothing"}
#: each pairing's name -> the channel of seat 0 and of seat 1
PAIRINGS = {"SMS / SMS": ("sms", "sms"), "Telegram / Telegram": ("telegram", "telegram"),
            "page+push / page+push": ("page+push", "page+push"), "Telegram / SMS": ("telegram", "sms"),
            "page+push / SMS": ("page+push", "sms")}


def price(channel: str, country: str, table: Prices, text: str, inbound: bool) -> float:
    """What one message to (or, ``inbound``, from) a player on ``channel`` costs."""
    if channel in FREE:
        return 0.0
    if channel != "sms":
        raise ValueError(f"no price for {channel!r}")
    n = segments(text)
    return table.sms_in(country, n) if inbound else table.sms_out(country, n)


def paired_cost(t: Transcript, numbers: tuple[str, str], table: Prices, sched: Schedule,
                channels: tuple[str, str]) -> Cost:
    """Game ``t`` (rendered for SMS) at one pace (``sched``) with seat 0 on ``channels[0]`` and seat 1 on
    ``channels[1]``: every message each way priced by its player's channel; segments counted for SMS seats only."""
    countries = [country_of(n) for n in numbers]
    sms_out = [segments(s.rendered.text) for s in sched.sends if channels[s.seat] == "sms"]
    sms_in = [segments(r.text) for r in t.replies if channels[r.seat] == "sms"]
    cost = (sum(price(channels[s.seat], countries[s.seat], table, s.rendered.text, False) for s in sched.sends)
            + sum(price(channels[r.seat], countries[r.seat], table, r.text, True) for r in t.replies))
    return Cost(" / ".join(channels), len(sched.sends), sum(sms_out), len(t.replies), sum(sms_in), 0,
                sum(s.reminder for s in sched.sends), cost, sched.days)


@dataclass(frozen=True)
class Taps:
    """The answers of one Telegram game: ``decisions`` given (plans aside), ``on_keyboard`` of them asked by a
    message with a keyboard of their answers, ``one_tap`` of those whose answer was a button of it; ``messages``
    sent (the Telegram messages, long texts split), ``sms_messages`` the same game's by SMS, ``hands`` played."""

    decisions: int
    on_keyboard: int
    one_tap: int
    messages: int
    sms_messages: int
    hands: int

    @property
    def typed(self) -> int:
        """Decisions asked without a keyboard (too many answers): typed."""
        return self.decisions - self.on_keyboard

    @property
    def api_calls(self) -> int:
        """Bot API calls: a ``sendMessage`` a message, and two a tap (the tap answered, its keyboard removed)."""
        return self.messages + 2 * self.one_tap


def taps(by_telegram: Transcript, by_sms: Transcript) -> Taps:
    """What the answers of ``by_telegram`` take in taps, and its messages against the same game by SMS."""
    decisions = on_keyboard = one_tap = 0
    for r in by_telegram.replies:
        if r.plan:
            continue
        decisions += 1
        asked = max(i for i in range(r.after) if by_telegram.messages[i].seat == r.seat)
        replies = by_telegram.messages[asked].rendered.replies
        offered = buttons(replies, "game", "question")
        if not replies or len(replies) > KEYBOARD_MAX or len(offered) < len(replies):
            continue
        on_keyboard += 1
        one_tap += r.text in {data.split("|", 1)[1] for _label, data in offered}
    hands = len(by_telegram.game.history) if by_telegram.game else by_telegram.hands
    return Taps(decisions, on_keyboard, one_tap, sum(len(m.rendered.parts) for m in by_telegram.messages),
                len(by_sms.messages), max(hands, 1))


@dataclass(frozen=True)
class Game:
    """One game: per pairing (:data:`PAIRINGS`) and pace, its :class:`Cost`; and its :class:`Taps`."""

    lang: str
    costs: dict[str, dict[str, Cost]]
    taps: Taps


def game(seed: int, lang: str, table: Prices, max_hands: int | None = None) -> Game:
    """Game ``seed`` in ``lang`` by SMS and by Telegram (the same moves), priced every way at every pace."""
    numbers = NUMBERS[lang]
    by_sms = play(seed, lang, "sms", max_hands)
    by_telegram = play(seed, lang, "telegram", max_hands)
    costs: dict[str, dict[str, Cost]] = {name: {} for name in PAIRINGS}
    for pace_name, pace in PACES.items():
        sched = schedule(by_sms, lang, pace, numbers)
        for name, channels in PAIRINGS.items():
            costs[name][pace_name] = paired_cost(by_sms, numbers, table, sched, channels)
    return Game(lang, costs, taps(by_telegram, by_sms))


def _mean(values: list[float]) -> float:
    return statistics.mean(values) if values else 0.0


def report(games: int, max_hands: int | None, table: Prices) -> list[str]:
    """The free channels' tables (means per game) and the goals' verdicts."""
    cur = table.currency
    rows = {lang: [game(1000 + g, lang, table, max_hands) for g in range(games)] for lang in LANGUAGES}
    lines = ["Free channels (issue 43): the same games, each seat priced by its channel (Telegram and page+push: "
             "$0 a message); the mixed games: the first player on Telegram or the page, the second by SMS", "",
             f"| lang | pace | SMS / SMS {cur} | Telegram / Telegram {cur} | page+push / page+push {cur} "
             f"| Telegram / SMS {cur} | saves | page+push / SMS {cur} | saves |", "|---|---|---|---|---|---|---|---|---|"]
    free_max = 0.0
    mixed_worst = 0.0
    for lang, games_ in rows.items():
        for pace in PACES:
            usd = {name: _mean([g.costs[name][pace].cost for g in games_]) for name in PAIRINGS}
            free_max = max(free_max, usd["Telegram / Telegram"], usd["page+push / page+push"])
            mixed_worst = max(mixed_worst, usd["Telegram / SMS"] / usd["SMS / SMS"],
                              usd["page+push / SMS"] / usd["SMS / SMS"])
            sms = usd["SMS / SMS"]
            lines.append(f"| {lang} | {pace} | {sms:.2f} | {usd['Telegram / Telegram']:.2f} "
                         f"| {usd['page+push / page+push']:.2f} | {usd['Telegram / SMS']:.2f} "
                         f"| {sms - usd['Telegram / SMS']:.2f} | {usd['page+push / SMS']:.2f} "
                         f"| {sms - usd['page+push / SMS']:.2f} |")
    lines += ["", f"goal: $0 of messages a game at every pace when both players use Telegram or the page: most "
                  f"{cur} {free_max:.2f} ({'met' if free_max == 0 else 'NOT met'}); a mixed game costs at most "
                  f"{mixed_worst:.2f} of the SMS game", "",
              "Taps and messages on Telegram, per game (mean), the same games:", "",
              "| lang | decisions | on a keyboard | of those in one tap | typed | messages a hand: Telegram "
              "| SMS | Bot API calls a hand |", "|---|---|---|---|---|---|---|---|"]
    every = [g.taps for games_ in rows.values() for g in games_]
    for lang, games_ in rows.items():
        t = [g.taps for g in games_]
        hands = sum(x.hands for x in t)
        lines.append(f"| {lang} | {_mean([x.decisions for x in t]):.0f} | {_mean([x.on_keyboard for x in t]):.0f} "
                     f"| {sum(x.one_tap for x in t) / max(sum(x.on_keyboard for x in t), 1):.0%} "
                     f"| {_mean([x.typed for x in t]):.1f} | {sum(x.messages for x in t) / hands:.1f} "
                     f"| {sum(x.sms_messages for x in t) / hands:.1f} | {sum(x.api_calls for x in t) / hands:.1f} |")
    keyed = sum(x.on_keyboard for x in every)
    tapped = sum(x.one_tap for x in every)
    above = [g.lang for games_ in rows.values() for g in games_ if g.taps.messages > g.taps.sms_messages]
    return lines + ["", f"goal: 1 tap a move for every decision whose answers fit a keyboard: {tapped} of {keyed} "
                        f"in one tap ({'met' if tapped == keyed else 'NOT met'}); messages a hand not above SMS's: "
                        f"{'met' if not above else 'NOT met in ' + ', '.join(sorted(set(above)))}"]


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv and argv[0].isdigit() else 3
    max_hands = int(argv[argv.index("--hands") + 1]) if "--hands" in argv else None
    print("\n".join(report(games, max_hands, load())))


if __name__ == "__main__":
    main(sys.argv[1:])
