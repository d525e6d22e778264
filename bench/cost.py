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
from bisect import bisect_right
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.planning import PlanningPlayer, unlike_normal
from bench.segments import SERVICE, _chooser
from chat.gsm import segments
from chat.languages import LANGUAGES
from chat.messages import prompt
from chat.render import Rendered, render
from chat.simulate import Sent, Transcript, play_game
from service.lifecycle.reminders import quiet_until, zone_for_number
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
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
WINDOW_MS = DAY_MS  # WhatsApp's customer service window
START = datetime(2026, 12, 7, 18, 0, tzinfo=timezone.utc)  # the clock's 0: a Monday evening (UTC)
SITTING_MS = 30 * MINUTE_MS
SITTING_HOURS = (19, 21)  # each seat's hour of the day (UTC) in the "daily sitting" pace
#: SLOWSPADES_REMIND_DELAYS (12,24,48) and REMIND_MAX (3) by default: hours from the turn's start to each reminder
REMINDERS_AFTER_H = (12, 36, 84)
QUIET_HOURS = (22, 8)  # SLOWSPADES_QUIET_HOURS' default, the player's local time
NAMES = ("Alexandrina", "Konstantinos")
LABELS = ("#12", "#3")


def within_minutes(seat: int, prompted_at: int, now: int) -> int:
    """A player who answers within minutes: 5 minutes after the prompt."""
    return max(now, prompted_at + 5 * MINUTE_MS)


def a_day_late(seat: int, prompted_at: int, now: int) -> int:
    """A player who answers each prompt a day (and 5 minutes) after it came."""
    return max(now, prompted_at + DAY_MS + 5 * MINUTE_MS)


def daily_sitting(seat: int, prompted_at: int, now: int) -> int:
    """A player who looks once a day, for half an hour from their hour (``SITTING_HOURS``, UTC), and answers
    within a minute whatever is waiting or comes meanwhile; a prompt outside the sitting waits for the next one."""
    at = max(now, prompted_at)
    hour_ms = SITTING_HOURS[seat] * HOUR_MS
    offset = START.hour * HOUR_MS + START.minute * MINUTE_MS  # the clock's 0 is START, not midnight
    start = (at + offset - hour_ms) // DAY_MS * DAY_MS + hour_ms - offset
    if at - start >= SITTING_MS:  # past today's sitting: the next day's
        start += DAY_MS
    return max(at, start) + MINUTE_MS


def one_of_each(seat: int, prompted_at: int, now: int) -> int:
    """The first player answers within minutes, the second a day late."""
    return (within_minutes if seat == 0 else a_day_late)(seat, prompted_at, now)


Pace = Callable[[int, int, int], int]
PACES: dict[str, Pace] = {"minutes": within_minutes, "daily sitting": daily_sitting, "a day late": a_day_late,
                          "minutes / a day late": one_of_each}


@dataclass(frozen=True)
class Send:
    """One message of the service at its time: a message of the game, or a reminder of the lifecycle."""

    seat: int
    at: int
    rendered: Rendered
    reminder: bool = False


@dataclass(frozen=True)
class Schedule:
    """A game at one pace: what the service sent, in time order, and when each reply came."""

    sends: list[Send]
    came_at: list[int]

    @property
    def days(self) -> float:
        return max([s.at for s in self.sends] + self.came_at, default=0) / DAY_MS


@dataclass(frozen=True)
class Cost:
    """One game on one channel at one pace: what was sent and received, and what it cost (``templates``: WhatsApp
    only; ``reminders``: the lifecycle's, counted in ``out_messages`` too)."""

    channel: str
    out_messages: int
    out_segments: int
    in_messages: int
    in_segments: int
    templates: int
    reminders: int
    cost: float
    days: float = 0.0


DN_AHEAD = True  # the planning players say DN OFF (RULES D12's "double nil answer ahead"): no hand waits for it


def play(seed: int, lang: str, channel: str, max_hands: int | None = None, plans: bool = False,
         guess: bool = True) -> Transcript:
    """A game between two ``basic`` players in ``lang``, rendered for ``channel``, as the service plays it; with
    ``plans``, each also gives answers ahead after each answer, as ``normal`` would (``bench/planning.py``;
    ``guess``: its leads guessed when they depend on the opponent)."""
    chooser, _who = _chooser(seed)
    planners = (PlanningPlayer(seed, guess, lang), PlanningPlayer(seed + 1, guess, lang)) if plans else None
    ahead = {"ask_dn": (False, False)} if plans and DN_AHEAD else {}  # DN OFF: the double nil answer given ahead
    return play_game(seed, langs=(lang, lang), names=NAMES, channel=channel, chooser=chooser, labels=LABELS,
                     max_hands=max_hands, planners=planners, **SERVICE, **ahead)


def timeline(t: Transcript, pace: Pace, draw_apart: bool = False) -> tuple[list[int], list[int], list[int | None]]:
    """When each message went and each reply came (ms from the start), by the time model of the module, and the
    message each reply answers (None: it came before any message to its player).

    ``draw_apart``: in a simultaneous draw (D11) a player's answer waits only for their own prompt, not for the
    opponent's answers the simulator happened to take before it, and their next draw prompt goes at once (each
    player draws on their own clock, as the sitting pace means: "whatever comes meanwhile, their own next draws");
    what follows the draw waits for both. Without it every answer waits for the one before it in the game's order,
    so a draw the simulator interleaved costs the players of a daily sitting a day at each change of player."""
    sent_at: list[int] = []
    came_at: list[int] = []
    answered: list[int | None] = []
    now = 0  # the latest answer so far: what the game has taken
    last, last_seat = 0, -1  # the answer just taken, and its player
    last_to: list[int | None] = [None, None]  # the index of the last message to each seat
    replies = iter(t.replies)
    pending = next(replies, None)
    for i in range(len(t.messages) + 1):
        while pending is not None and pending.after == i:
            prompt = last_to[pending.seat]
            if pending.plan:  # a plan message goes with the answer before it: the same sitting, the same minute
                came_at.append(last)
                answered.append(None)
                pending = next(replies, None)
                continue
            floor = now
            if draw_apart and prompt is not None and t.messages[prompt].view.phase == "draw":
                floor = sent_at[prompt]
            last, last_seat = pace(pending.seat, sent_at[prompt] if prompt is not None else 0, floor), pending.seat
            now = max(now, last)
            came_at.append(last)
            answered.append(prompt)
            pending = next(replies, None)
        if i < len(t.messages):
            m = t.messages[i]
            own = draw_apart and m.view.phase == "draw" and m.seat == last_seat
            sent_at.append(last if own else now)
            last_to[m.seat] = i
    return sent_at, came_at, answered


def reminder_times(prompted_at: int, answered_at: int, number: str) -> list[int]:
    """The lifecycle's reminders of a turn that began at ``prompted_at`` and ended with its answer: 12, 36 and 84
    hours after its start, one due in the player's quiet hours sent at their end, none once the player answered."""
    zone = ZoneInfo(zone_for_number(number) or "UTC")
    out = []
    for hours in REMINDERS_AFTER_H:
        due = START + timedelta(milliseconds=prompted_at + hours * HOUR_MS)
        due = quiet_until(due, zone, QUIET_HOURS) or due
        at = int((due - START).total_seconds() * 1000)
        if at >= answered_at:
            break
        out.append(at)
    return out


def reminder(sent: Sent, lang: str, n: int) -> Rendered:
    """Reminder ``n`` of a prompt, as the lifecycle writes it: "Reminder:" and the prompt again."""
    channel = sent.rendered.channel
    shown = prompt(sent.view, lang, channel, None, NAMES[1 - sent.seat], LABELS[sent.seat])
    return render("reminder", lang, channel, family="lifecycle", prompt=shown.text, n=n,
                  of=len(REMINDERS_AFTER_H), opp=NAMES[1 - sent.seat], label=LABELS[sent.seat])


def schedule(t: Transcript, lang: str, pace: Pace, numbers: tuple[str, str], draw_apart: bool = False) -> Schedule:
    """The game at ``pace``: its messages at their times, and the reminders of every turn a player waited on
    (``draw_apart``: see :func:`timeline`)."""
    sent_at, came_at, answered = timeline(t, pace, draw_apart)
    sends = [Send(m.seat, at, m.rendered) for m, at in zip(t.messages, sent_at)]
    for prompt_index, answered_at in zip(answered, came_at):
        if prompt_index is None or not t.messages[prompt_index].view.my_turn:
            continue
        m = t.messages[prompt_index]
        for n, at in enumerate(reminder_times(sent_at[prompt_index], answered_at, numbers[m.seat]), 1):
            sends.append(Send(m.seat, at, reminder(m, lang, n), reminder=True))
    return Schedule(sorted(sends, key=lambda s: s.at), came_at)


def sms_cost(t: Transcript, numbers: tuple[str, str], table: Prices, sched: Schedule) -> Cost:
    """The game's SMS: segments out and in, priced by each player's country."""
    countries = [country_of(n) for n in numbers]
    out = [segments(s.rendered.text) for s in sched.sends]
    inn = [segments(r.text) for r in t.replies]
    cost = (sum(table.sms_out(countries[s.seat], n) for s, n in zip(sched.sends, out))
            + sum(table.sms_in(countries[r.seat], n) for r, n in zip(t.replies, inn)))
    return Cost("sms", len(out), sum(out), len(inn), sum(inn), 0, sum(s.reminder for s in sched.sends), cost,
                sched.days)


def whatsapp_cost(t: Transcript, numbers: tuple[str, str], table: Prices, sched: Schedule) -> Cost:
    """The game's WhatsApp messages at one pace: free-form inside each player's window, templates outside it."""
    countries = [country_of(n) for n in numbers]
    came = [sorted(at for r, at in zip(t.replies, sched.came_at) if r.seat == seat) for seat in (0, 1)]
    out = templates = 0
    cost = 0.0
    for s in sched.sends:
        i = bisect_right(came[s.seat], s.at)
        last_in = came[s.seat][i - 1] if i else 0  # both players have just written when the game starts
        if s.at - last_in > WINDOW_MS:  # the window is closed: a template, one message
            templates += 1
            out += 1
            cost += table.whatsapp_out(countries[s.seat], "utility")
        else:
            parts = len(s.rendered.parts)
            out += parts
            cost += parts * table.whatsapp_out(countries[s.seat])
    cost += sum(table.whatsapp_in(countries[r.seat]) for r in t.replies)
    return Cost("whatsapp", out, 0, len(t.replies), 0, templates, sum(s.reminder for s in sched.sends), cost,
                sched.days)


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
        from bench import free_channels  # it builds on this module's games and paces

        print()
        print("\n".join(free_channels.report(games, max_hands, table)))


if __name__ == "__main__":
    main(sys.argv[1:])
