"""The games and the time model of ``bench/cost.py`` (its docstring describes them): the players' numbers, the paces,
a game played through the conversation layer (:func:`play`), when each message goes and each answer comes
(:func:`timeline`, :func:`schedule`, the lifecycle's reminders included), and a game priced by SMS and by WhatsApp
(:func:`sms_cost`, :func:`whatsapp_cost`). ``bench/cost.py`` and ``bench/free_channels.py`` build on it.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.planning import PlanningPlayer
from bench.segments import SERVICE, _chooser
from chat.gsm import segments
from chat.messages import prompt
from chat.render import Rendered, render
from chat.simulate import Sent, Transcript, play_game
from service.lifecycle.reminders import quiet_until, zone_for_number
from service.prices import Prices, country_of

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
