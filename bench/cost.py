"""What a game costs in money, per channel and language: whole games through the conversation layer, priced with
the service's price table (``service/prices.toml``, or ``SLOWSPADES_PRICES_FILE``; :mod:`service.prices`).

The games are ``bench/segments.py``'s: two ``basic`` bots (else random legal replies) play as the service plays
(a simultaneous draw, forced cards played for the player, a decided hand played out, the summary with the double
nil question), every message rendered for the channel by ``chat.simulate``. Both players have phone numbers of
their language's country (en: US, fr: FR, nb: NO, id: ID, el: GR), which sets the prices. The same seeds give
the same games on every channel, so SMS and WhatsApp are compared on the same moves.

* SMS: every message the service sends costs its segments (``chat.gsm``) at ``sms_out``, every message a player
  sends its segments at ``sms_in``.
* WhatsApp: every reply the service sends is one message (more only past Twilio's 1,600 characters,
  ``Rendered.parts``), every message a player sends one message; each pays Twilio's fee, and an outbound one
  Meta's fee: a free-form message inside the player's 24-hour customer service window pays ``whatsapp_service``,
  a message outside it must be a template and pays ``whatsapp_utility``.

The time model (by WhatsApp a message outside the window is a template; on both channels a player who waits gets
reminders). The game's messages are in the order ``chat.simulate`` produced them, with the players' replies between them (``Transcript.replies``). The
clock starts at 0, when both players have just written (the invitation and its YES). A message of the service
goes at the time of the reply that caused it (the first ones at 0). A reply comes when its player answers the
prompt it answers (the last message to that player before it), and never before the event before it in the
game's order (the game took the answers in that order). The paces (``PACES``), the same for both players but the last:

* ``minutes``: each answer 5 minutes after its prompt.
* ``daily sitting``: once a day: each player looks at their phone for half an hour from their own hour (19:00 and
  21:00 UTC) and answers within a minute whatever waits and whatever comes meanwhile (their own next draws); a
  prompt that comes outside the sitting waits for the next day's.
* ``a day late``: each answer a day and 5 minutes after its prompt: the dearest reading of "once a day".
* ``minutes / a day late``: the first player answers within minutes, the second a day late (the quick one's
  prompts then come a day after their own last answer too: templates for both).

A message to a player more than 24 hours after that player's last message (their window closed) must be a
template (a utility template carrying the message's text as its variables, one message). The service has templates
for turn prompts, reminders and invitations (``SLOWSPADES_WHATSAPP_TEMPLATES``); any other message outside the
window would go by the player's other linked channel or not at all: counting it as a template is an upper bound. With ``a day late`` those
are the prompts that follow the opponent's move (a player's own next prompt follows their own answer at once,
inside the window); with ``daily sitting`` a window closes only if a player has nothing to answer in a whole
day's sitting (the bench counts them: none in these games).

The lifecycle's reminders are counted at every pace, on both channels: a prompt that asks a player to move and is
not answered 12 hours after it went gets "Reminder:" and the prompt again (``templates/lifecycle/sms/reminder``),
then at 36 and 84 hours (``SLOWSPADES_REMIND_DELAYS`` 12,24,48 and ``REMIND_MAX`` 3 by default); one due in the
player's quiet hours (22:00 to 08:00 in their number's time zone) goes at their end; none after the answer. (The
service counts a turn from the game's version the player must move in; here from the prompt: close, as a prompt
goes when that version begins.) By WhatsApp a reminder outside the window is a template too. The clock's 0 is
``START``, a Monday at 18:00 UTC. Not modelled: the invitation and its answer, and Meta's 1,000 free service
messages a month per business number.

Prints per language, per game (mean over the games): the game's own messages (SMS messages and segments out,
segments in, WhatsApp messages out and in, and their cost); then per pace the game's length in days, the
reminders, the SMS cost, the WhatsApp templates and cost against the SMS game's (goal: at most a fifth with
daily answers), and the same with Meta's fee inside the window at 0 (its price before 2026-10-01); then the first
message of a Greek game by WhatsApp (lower case with its accents) and by SMS.
Then issue 41's table: the same SMS games played again by players who give answers ahead (RULES D12) as the
``normal`` bot would choose them (``bench/planning.py``, ``chat.simulate``'s ``planners``), at every pace: days a
game, reminders a game, messages and segments a hand, and how often a planned move is not what ``normal`` would
have played at its moment. A move a plan makes comes at the moment of the message that triggered it (the
opponent's move, or the plan itself), and a plan message at the moment of the answer it goes with; a player whose
plan covers a decision is not prompted for it, so owes nothing and gets no reminder for it.
Last, the free channels' tables of issue 43 (``bench/free_channels.py``): the same games with a player on Telegram
or on the game page with Web Push ($0 a message), alone and against an SMS player, and the taps a move on Telegram.
Usage: ``python bench/cost.py [games] [--hands N] [--plans-only] [--strict-leads]`` (3 games a language;
``--hands``: only the first N hands; ``--plans-only``: issue 41's table alone; ``--strict-leads``: the planning
players guess no lead, see ``bench/planning.py``).
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import free_channels
from bench.cost_model import NUMBERS, PACES, Cost, play, schedule, sms_cost, whatsapp_cost
from bench.planning import unlike_normal
from chat.gsm import segments
from chat.languages import LANGUAGES
from service.prices import Prices, country_of, load


#: Two phone numbers of each language's country (the players)
@dataclass(frozen=True)
class GameCosts:
    """One game priced every way and at every pace (``PACES``): by SMS, by WhatsApp, and by WhatsApp with Meta's
    fee inside the window at 0 (before 2026-10-01)."""

    lang: str
    hands: int
    sms: dict[str, Cost]
    whatsapp: dict[str, Cost]
    whatsapp_free_window: dict[str, Cost]


def game_costs(seed: int, lang: str, table: Prices, max_hands: int | None = None) -> GameCosts:
    """Play game ``seed`` in ``lang`` by SMS and by WhatsApp (the same moves) and price both at every pace."""
    numbers = NUMBERS[lang]
    by_sms = play(seed, lang, "sms", max_hands)
    by_whatsapp = play(seed, lang, "whatsapp", max_hands)
    free = replace(table, countries={c: {**f, "whatsapp_service": 0.0} for c, f in table.countries.items()})
    sms, wa, wa_free = {}, {}, {}
    for name, pace in PACES.items():
        sms[name] = sms_cost(by_sms, numbers, table, schedule(by_sms, lang, pace, numbers))
        sched = schedule(by_whatsapp, lang, pace, numbers)
        wa[name] = whatsapp_cost(by_whatsapp, numbers, table, sched)
        wa_free[name] = whatsapp_cost(by_whatsapp, numbers, free, sched)
    hands = len(by_sms.game.history) if by_sms.game else by_sms.hands
    return GameCosts(lang, hands, sms, wa, wa_free)


def _mean(values: list[float]) -> float:
    return statistics.mean(values) if values else 0.0


@dataclass(frozen=True)
class Ahead:
    """One game by SMS played twice on the same seed, without plans and with them (issue 41): per pace (``PACES``)
    and time model (the draw's answers in the game's order, or apart: :func:`timeline`) its :class:`Cost` (days,
    reminders), and the game's own messages, segments and hands; ``planned`` the moves plans made, ``unlike`` those
    ``normal`` would not have played then."""

    lang: str
    costs: dict[tuple[bool, bool], dict[str, Cost]]  # (with plans, the draw apart) -> pace -> cost
    hands: dict[bool, int]
    messages: dict[bool, int]
    segments: dict[bool, int]
    planned: int
    unlike: int


def ahead_costs(seed: int, lang: str, table: Prices, max_hands: int | None = None, guess: bool = True) -> Ahead:
    """Game ``seed`` in ``lang`` by SMS without plans and with them (``guess``: see :func:`play`), at every pace."""
    numbers = NUMBERS[lang]
    costs, hands, messages, segs = {}, {}, {}, {}
    planned = unlike = 0
    for plans in (False, True):
        t = play(seed, lang, "sms", max_hands, plans, guess)
        for apart in (False, True):
            costs[plans, apart] = {name: sms_cost(t, numbers, table, schedule(t, lang, pace, numbers, apart))
                                   for name, pace in PACES.items()}
        hands[plans] = len(t.game.history) if t.game else t.hands
        messages[plans] = len(t.messages)
        segs[plans] = sum(segments(m.rendered.text) for m in t.messages)
        if plans:
            planned, unlike = len(t.planned), unlike_normal(t)
    return Ahead(lang, costs, hands, messages, segs, planned, unlike)


def _both(figure: Callable[[bool], float]) -> tuple[float, float]:
    """``figure`` without plans and with them."""
    return figure(False), figure(True)


def _arrow(without: float, with_plans: float, digits: int = 1) -> str:
    return f"{without:.{digits}f} -> {with_plans:.{digits}f}"


def ahead_report(games: int, max_hands: int | None, table: Prices, guess: bool = True) -> list[str]:
    """The table of issue 41: each pace without plans and with them (means per game over every language; a hand:
    the worst language), and how often a plan played what ``normal`` would not have."""
    rows = {lang: [ahead_costs(1000 + g, lang, table, max_hands, guess) for g in range(games)] for lang in LANGUAGES}
    every = [a for games_ in rows.values() for a in games_]

    def worst(plans: bool, count: Callable[[Ahead], float]) -> float:
        """The most of ``count`` a hand in any language."""
        return max(sum(count(a) for a in games_) / sum(a.hands[plans] for a in games_) for games_ in rows.values())

    lines = ["Answers given ahead (issue 41), by SMS, the same seeds: without plans -> with plans (each player plans "
             f"as normal would, bench/planning.py, {'leads guessed' if guess else 'no lead guessed'}); a game: mean "
             "over every language; a hand: the worst language. Time model: 'in order' as above (every answer after "
             "the one before it in the game's order), 'draw apart' each player's draw on their own clock "
             "(timeline's draw_apart)", "",
             "| pace | time model | days a game | days a hand | reminders a game | messages a hand | segments a hand "
             "| with the reminders: messages a hand | segments a hand |", "|---|---|---|---|---|---|---|---|---|"]
    for pace in PACES:
        for apart in (False, True):
            def cost(a: Ahead, plans: bool, pace: str = pace, apart: bool = apart) -> Cost:
                return a.costs[plans, apart][pace]

            cells = [
                _arrow(*_both(lambda p: _mean([cost(a, p).days for a in every]))),
                _arrow(*_both(lambda p: sum(cost(a, p).days for a in every) / sum(a.hands[p] for a in every)), 2),
                _arrow(*_both(lambda p: _mean([cost(a, p).reminders for a in every])), 0),
                _arrow(worst(False, lambda a: a.messages[False]), worst(True, lambda a: a.messages[True])),
                _arrow(worst(False, lambda a: a.segments[False]), worst(True, lambda a: a.segments[True])),
                _arrow(worst(False, lambda a: cost(a, False).out_messages),
                       worst(True, lambda a: cost(a, True).out_messages)),
                _arrow(worst(False, lambda a: cost(a, False).out_segments),
                       worst(True, lambda a: cost(a, True).out_segments)),
            ]
            lines.append(f"| {pace} | {'draw apart' if apart else 'in order'} | " + " | ".join(cells) + " |")
    planned, unlike = sum(a.planned for a in every), sum(a.unlike for a in every)
    hands = _mean([a.hands[False] for a in every]), _mean([a.hands[True] for a in every])
    return lines + ["", f"hands a game {_arrow(*hands)}; moves made by plans: {planned / len(every):.1f} a game, "
                        f"{unlike / max(planned, 1):.1%} of them not what normal would have played at that moment",
                    "goals: daily sitting <= 30 days (aim 15), a day late <= 90, minutes not slower; messages and "
                    "segments a hand not above without plans; reminders at the daily sitting <= 60"]


def report(games: int, max_hands: int | None, table: Prices) -> list[str]:
    """The tables bench/cost.py prints (means per game), and the goal's verdicts."""
    cur = table.currency
    rows = {lang: [game_costs(1000 + g, lang, table, max_hands) for g in range(games)] for lang in LANGUAGES}
    lines = [f"prices: {cur} as of {table.as_of}; {games} game(s) a language"
             + (f" of {max_hands} hand(s)" if max_hands else " to 500") + "; per game, mean", "",
             "The game's own messages (no reminder: the players answer within minutes):", "",
             f"| lang (country) | hands | SMS out: messages (segments) | SMS in: segments | SMS {cur} "
             f"| WhatsApp out / in: messages | WhatsApp {cur} |", "|---|---|---|---|---|---|---|"]
    for lang, games_ in rows.items():
        sms = [r.sms["minutes"] for r in games_]
        wa = [r.whatsapp["minutes"] for r in games_]
        lines.append(f"| {lang} ({country_of(NUMBERS[lang][0])}) | {_mean([r.hands for r in games_]):.1f} "
                     f"| {_mean([c.out_messages for c in sms]):.0f} ({_mean([c.out_segments for c in sms]):.0f}) "
                     f"| {_mean([c.in_segments for c in sms]):.0f} | {_mean([c.cost for c in sms]):.2f} "
                     f"| {_mean([c.out_messages for c in wa]):.0f} / {_mean([c.in_messages for c in wa]):.0f} "
                     f"| {_mean([c.cost for c in wa]):.2f} |")
    lines += ["", "By pace, the reminders included (the same on both channels):", "",
              f"| lang | pace | days | reminders | SMS {cur} | WhatsApp templates | WhatsApp {cur} | / SMS "
              f"| window free: WhatsApp {cur} | / SMS |", "|---|---|---|---|---|---|---|---|---|---|"]
    verdicts = []
    for lang, games_ in rows.items():
        for pace in PACES:
            sms = _mean([r.sms[pace].cost for r in games_])
            wa = [r.whatsapp[pace] for r in games_]
            cost, free = _mean([c.cost for c in wa]), _mean([r.whatsapp_free_window[pace].cost for r in games_])
            lines.append(f"| {lang} | {pace} | {_mean([c.days for c in wa]):.1f} "
                         f"| {_mean([c.reminders for c in wa]):.0f} | {sms:.2f} "
                         f"| {_mean([c.templates for c in wa]):.0f} | {cost:.2f} | {cost / sms:.2f} "
                         f"| {free:.2f} | {free / sms:.2f} |")
            if pace != "minutes":
                verdicts.append(f"{lang}, {pace}: {cost / sms:.2f} of the SMS game "
                                f"({'met' if cost <= sms / 5 else 'NOT met'}); with the window free "
                                f"{free / sms:.2f} ({'met' if free <= sms / 5 else 'NOT met'})")
    return lines + ["", "goal: a WhatsApp game with daily answers costs at most a fifth of the same game by SMS",
                    *verdicts]


def greek_sample() -> str:
    """The first WhatsApp message of a Greek game (lower case with accents) and the same message by SMS."""
    return (f"el WhatsApp: {play(1000, 'el', 'whatsapp', 1).messages[0].rendered.text}\n"
            f"el SMS:      {play(1000, 'el', 'sms', 1).messages[0].rendered.text}")


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv and argv[0].isdigit() else 3
    max_hands = int(argv[argv.index("--hands") + 1]) if "--hands" in argv else None
    table = load()
    if "--plans-only" not in argv:
        print("\n".join(report(games, max_hands, table)))
        print()
        print(greek_sample())
        print()
    print("\n".join(ahead_report(games, max_hands, table, "--strict-leads" not in argv)))
    if "--plans-only" not in argv:
        print()
        print("\n".join(free_channels.report(games, max_hands, table)))


if __name__ == "__main__":
    main(sys.argv[1:])
