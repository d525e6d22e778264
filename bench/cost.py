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

The time model (WhatsApp only: the cost of an SMS does not depend on when it goes). The game's messages are in
the order ``chat.simulate`` produced them, with the players' replies between them (``Transcript.replies``). The
clock starts at 0, when both players have just written (the invitation and its YES). A message of the service
goes at the time of the reply that caused it (the first ones at 0). A reply comes when its player answers the
prompt it answers (the last message to that player before it), and never before the event before it in the
game's order (the game took the answers in that order). The paces (``PACES``), the same for both players:

* ``minutes``: each answer 5 minutes after its prompt.
* ``daily sitting``: once a day: each player looks at their phone for half an hour from their own hour (19:00 and
  21:00 UTC) and answers within a minute whatever waits and whatever comes meanwhile (their own next draws); a
  prompt that comes outside the sitting waits for the next day's.
* ``a day late``: each answer a day and 5 minutes after its prompt: the dearest reading of "once a day".

A message to a player more than 24 hours after that player's last message (their window closed) must be a
template (a utility template carrying the message's text as its variables, one message). With ``a day late`` those
are the prompts that follow the opponent's move (a player's own next prompt follows their own answer at once,
inside the window); with ``daily sitting`` a window closes only if a player has nothing to answer in a whole
day's sitting (the bench counts them: none in these games).
Not modelled: the lifecycle's reminders (``SLOWSPADES_REMIND_DELAYS``: a player who answers a day late also gets
the 12-hour reminder of each turn they wait for, on either channel), the invitation and its answer, quiet hours,
and Meta's 1,000 free service messages a month per business number.

Prints per language, per game (mean over the games): SMS messages and segments out, segments in and their cost,
WhatsApp messages out and in; then per pace the templates, the game's length in days and its cost, against the SMS
game's (goal: at most a fifth with daily answers), and the same with Meta's fee inside the window at 0 (its price
before 2026-10-01); then the first message of a Greek game by WhatsApp (lower case with its accents) and by SMS.
Usage: ``python bench/cost.py [games] [--hands N]`` (3 games a language; ``--hands``: only the first N hands).
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.segments import SERVICE, _chooser
from chat.gsm import segments
from chat.languages import LANGUAGES
from chat.simulate import Transcript, play_game
from service.prices import Prices, country_of, load

#: Two phone numbers of each language's country (the players)
NUMBERS = {
    "en": ("+12025550143", "+12025550178"),
    "fr": ("+33612345678", "+33698765432"),
    "nb": ("+4791234567", "+4798765432"),
    "id": ("+6281234567890", "+6281298765432"),
    "el": ("+306912345678", "+306998765432"),
}
MINUTE_MS = 60_000
DAY_MS = 24 * 60 * MINUTE_MS
WINDOW_MS = DAY_MS  # WhatsApp's customer service window
SITTING_MS = 30 * MINUTE_MS
SITTING_HOURS = (19, 21)  # each seat's hour of the day (UTC) in the "daily sitting" pace


def within_minutes(seat: int, prompted_at: int, now: int) -> int:
    """A player who answers within minutes: 5 minutes after the prompt."""
    return max(now, prompted_at + 5 * MINUTE_MS)


def a_day_late(seat: int, prompted_at: int, now: int) -> int:
    """A player who answers each prompt a day (and 5 minutes) after it came."""
    return max(now, prompted_at + DAY_MS + 5 * MINUTE_MS)


def daily_sitting(seat: int, prompted_at: int, now: int) -> int:
    """A player who looks once a day, for half an hour from their hour (``SITTING_HOURS``), and answers within a
    minute whatever is waiting or comes meanwhile; a prompt outside the sitting waits for the next one."""
    at = max(now, prompted_at)
    start = (at - SITTING_HOURS[seat] * 60 * MINUTE_MS) // DAY_MS * DAY_MS + SITTING_HOURS[seat] * 60 * MINUTE_MS
    if at - start >= SITTING_MS:  # past today's sitting: the next day's
        start += DAY_MS
    return max(at, start) + MINUTE_MS


Pace = Callable[[int, int, int], int]
PACES: dict[str, Pace] = {"minutes": within_minutes, "daily sitting": daily_sitting, "a day late": a_day_late}


@dataclass(frozen=True)
class Cost:
    """One game on one channel: what was sent and received, and what it cost (``templates``: WhatsApp only)."""

    channel: str
    out_messages: int
    out_segments: int
    in_messages: int
    in_segments: int
    templates: int
    cost: float
    days: float = 0.0


def play(seed: int, lang: str, channel: str, max_hands: int | None = None) -> Transcript:
    """A game between two ``basic`` players in ``lang``, rendered for ``channel``, as the service plays it."""
    chooser, _who = _chooser(seed)
    return play_game(seed, langs=(lang, lang), names=("Alexandrina", "Konstantinos"), channel=channel,
                     chooser=chooser, labels=("#12", "#3"), max_hands=max_hands, **SERVICE)


def sms_cost(t: Transcript, numbers: tuple[str, str], table: Prices) -> Cost:
    """The game's SMS: segments out and in, priced by each player's country."""
    countries = [country_of(n) for n in numbers]
    out = [segments(m.rendered.text) for m in t.messages]
    inn = [segments(r.text) for r in t.replies]
    cost = (sum(table.sms_out(countries[m.seat], s) for m, s in zip(t.messages, out))
            + sum(table.sms_in(countries[r.seat], s) for r, s in zip(t.replies, inn)))
    return Cost("sms", len(out), sum(out), len(inn), sum(inn), 0, cost)


def timeline(t: Transcript, pace: Pace) -> tuple[list[int], list[int]]:
    """When each message went and each reply came (ms from the start), by the time model of the module."""
    sent_at: list[int] = []
    came_at: list[int] = []
    now = 0
    last_to: list[int | None] = [None, None]  # the index of the last message to each seat
    replies = iter(t.replies)
    pending = next(replies, None)
    for i in range(len(t.messages) + 1):
        while pending is not None and pending.after == i:
            prompt = last_to[pending.seat]
            prompted_at = sent_at[prompt] if prompt is not None else 0
            now = pace(pending.seat, prompted_at, now)
            came_at.append(now)
            pending = next(replies, None)
        if i < len(t.messages):
            sent_at.append(now)
            last_to[t.messages[i].seat] = i
    return sent_at, came_at


def whatsapp_cost(t: Transcript, numbers: tuple[str, str], table: Prices, pace: Pace) -> Cost:
    """The game's WhatsApp messages at one pace: free-form inside each player's window, templates outside it."""
    countries = [country_of(n) for n in numbers]
    sent_at, came_at = timeline(t, pace)
    last_in = [0, 0]  # both players have just written when the game starts
    replies = list(zip(t.replies, came_at))
    r = 0
    out = templates = 0
    cost = 0.0
    for i, (m, at) in enumerate(zip(t.messages, sent_at)):
        while r < len(replies) and replies[r][0].after <= i:
            last_in[replies[r][0].seat] = replies[r][1]
            r += 1
        country = countries[m.seat]
        if at - last_in[m.seat] > WINDOW_MS:  # the window is closed: a template, one message
            templates += 1
            out += 1
            cost += table.whatsapp_out(country, "utility")
        else:
            parts = len(m.rendered.parts)
            out += parts
            cost += parts * table.whatsapp_out(country)
    cost += sum(table.whatsapp_in(countries[rep.seat]) for rep in t.replies)
    days = max(sent_at + came_at, default=0) / DAY_MS
    return Cost("whatsapp", out, 0, len(t.replies), 0, templates, cost, days)


@dataclass(frozen=True)
class GameCosts:
    """One game priced every way: by SMS, and by WhatsApp at each pace (``PACES``)."""

    lang: str
    hands: int
    sms: Cost
    whatsapp: dict[str, Cost]
    whatsapp_free_window: dict[str, Cost]  # the same with Meta's fee inside the window at 0 (before 2026-10-01)


def game_costs(seed: int, lang: str, table: Prices, max_hands: int | None = None) -> GameCosts:
    """Play game ``seed`` in ``lang`` by SMS and by WhatsApp (the same moves) and price both."""
    numbers = NUMBERS[lang]
    by_sms = play(seed, lang, "sms", max_hands)
    by_whatsapp = play(seed, lang, "whatsapp", max_hands)
    free = replace(table, countries={c: {**f, "whatsapp_service": 0.0} for c, f in table.countries.items()})
    hands = len(by_sms.game.history) if by_sms.game else by_sms.hands
    return GameCosts(lang, hands, sms_cost(by_sms, numbers, table),
                     {p: whatsapp_cost(by_whatsapp, numbers, table, d) for p, d in PACES.items()},
                     {p: whatsapp_cost(by_whatsapp, numbers, free, d) for p, d in PACES.items()})


def _mean(values: list[float]) -> float:
    return statistics.mean(values) if values else 0.0


def report(games: int, max_hands: int | None, table: Prices) -> list[str]:
    """The tables bench/cost.py prints (means per game), and the goal's verdicts."""
    cur = table.currency
    rows = {lang: [game_costs(1000 + g, lang, table, max_hands) for g in range(games)] for lang in LANGUAGES}
    lines = [f"prices: {cur} as of {table.as_of}; {games} game(s) a language"
             + (f" of {max_hands} hand(s)" if max_hands else " to 500") + "; per game, mean", "",
             f"| lang (country) | hands | SMS out: messages (segments) | SMS in: segments | SMS {cur} "
             "| WhatsApp out / in: messages |", "|---|---|---|---|---|---|"]
    for lang, games_ in rows.items():
        sms = [r.sms for r in games_]
        wa = [r.whatsapp["minutes"] for r in games_]
        lines.append(f"| {lang} ({country_of(NUMBERS[lang][0])}) | {_mean([r.hands for r in games_]):.1f} "
                     f"| {_mean([c.out_messages for c in sms]):.0f} ({_mean([c.out_segments for c in sms]):.0f}) "
                     f"| {_mean([c.in_segments for c in sms]):.0f} | {_mean([c.cost for c in sms]):.2f} "
                     f"| {_mean([c.out_messages for c in wa]):.0f} / {_mean([c.in_messages for c in wa]):.0f} |")
    lines += ["", f"| lang | WhatsApp pace | templates | days | {cur} | / SMS | window free: {cur} | / SMS |",
              "|---|---|---|---|---|---|---|---|"]
    verdicts = []
    for lang, games_ in rows.items():
        sms_cost = _mean([r.sms.cost for r in games_])
        for pace in PACES:
            wa = [r.whatsapp[pace] for r in games_]
            cost, free = _mean([c.cost for c in wa]), _mean([r.whatsapp_free_window[pace].cost for r in games_])
            lines.append(f"| {lang} | {pace} | {_mean([c.templates for c in wa]):.0f} "
                         f"| {_mean([c.days for c in wa]):.1f} | {cost:.2f} | {cost / sms_cost:.2f} "
                         f"| {free:.2f} | {free / sms_cost:.2f} |")
            if pace != "minutes":
                verdicts.append(f"{lang}, {pace}: {cost / sms_cost:.2f} of the SMS game "
                                f"({'met' if cost <= sms_cost / 5 else 'NOT met'}); with the window free "
                                f"{free / sms_cost:.2f} ({'met' if free <= sms_cost / 5 else 'NOT met'})")
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
    print("\n".join(report(games, max_hands, table)))
    print()
    print(greek_sample())


if __name__ == "__main__":
    main(sys.argv[1:])
