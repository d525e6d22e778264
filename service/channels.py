"""Where a player's message goes: :func:`destination`, asked wherever an outbox entry's address is chosen (the game's
notices and prompts, the lifecycle's messages), at the time the entry is written; the entry is rendered for the
channel it names.

A player is their *home* address (the seats of their games); addresses linked to it (``LINK``,
:mod:`service.store.links`) act for it and may be written to instead:

1. **a reply is a reply**: while an inbound message of the player is being handled (:func:`replying`), what is
   written to them goes back to the address the message came from, linked or not (it just wrote: it is reachable,
   and a WhatsApp address is inside its window), unless that address sent STOP;
2. otherwise the candidates are the home and its linked addresses, what ``VIA`` named first (an address of theirs,
   or those of a kind), then the free channels (Telegram, a browser's push: :data:`FREE`), then in link order (the
   home first), without the addresses that sent STOP;
3. each step of :data:`STEPS` may drop candidates or turn one into a template (see there);
4. the first candidate left is the destination; if none is left, the home address as before linking (with
   ``held``: why a step dropped it, e.g. a WhatsApp home outside its window with no template: then the message
   cannot go, and the delivery does not try).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping, Protocol

from . import logs
from .addresses import EMAIL, PUSH, SMS, TELEGRAM, WHATSAPP, address_kind
from .context import Config
from .records import Route
from .store import Reach, Store
from .store.links import Links
from .store.window import window_open
from .whatsapp import template_sid

log = logging.getLogger(__name__)

#: :attr:`Destination.held` of a WhatsApp home outside its window, with no template and nothing else to take it
WINDOW_CLOSED = "window_closed"


@dataclass(frozen=True)
class Template:
    """An approved WhatsApp Content template to send instead of free text (``ContentSid``, ``ContentVariables``)."""

    sid: str
    variables: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Destination:
    """Where one message goes: the address, its channel (``sms``, ``email``, ``whatsapp``), and the template it
    is sent as (None: free text rendered for ``channel``)."""

    address: str
    channel: str
    template: Template | None = None
    held: str = ""  # the home, as the last resort, when a step dropped it: why (WINDOW_CLOSED); "" otherwise

    @classmethod
    def to(cls, address: str) -> "Destination":
        return cls(address, address_kind(address))


class Window(Protocol):
    """When a WhatsApp address last wrote (its 24-hour window, :mod:`service.store.window`): the store's, or what a
    move read before composing its messages (:class:`service.games.known.Known`)."""

    def last_inbound_ms(self, address: str) -> int | None: ...

    def last_inbound_and_now(self, address: str) -> tuple[int | None, int]: ...


class Marks(Protocol):
    """The delivery receipts' marks on addresses (``Reach``, or what a move read before composing)."""

    def unreachable_many(self, addresses: list[str]) -> list[str]: ...


@dataclass
class Ask:
    """What a step is asked about: the player (``home``), the message's kind and language, and the time."""

    config: Config
    window: Window  # when the WhatsApp addresses last wrote
    reach: Marks  # the addresses delivery receipts marked unreachable
    home: str
    kind: str
    lang: str
    now: int | None = None  # ms of the service clock; read with the first window when the caller had none
    route: Route = field(default_factory=lambda: Route(""))
    held: str = ""  # why a step dropped the home (the last resort's Destination.held)


#: A step takes the candidates in order and gives back those left (it may replace one with a templated one).
Step = Callable[[Ask, list[Destination]], list[Destination]]


def whatsapp_step(ask: Ask, found: list[Destination]) -> list[Destination]:
    """A WhatsApp candidate: kept (free text) inside its 24-hour window (:mod:`service.store.window`); outside it,
    turned into the template configured for the message's kind and language (``ask.kind``: ``turn``, ``reminder``,
    ``invite`` have templates, :mod:`service.whatsapp`; any other kind none), else dropped, and the operator's log
    says so (the address as its keyed hash). A template is never used inside the window."""
    out: list[Destination] = []
    for d in found:
        if d.channel != WHATSAPP:
            out.append(d)
            continue
        if ask.now is None:  # the clock read with the window: one round trip
            last, ask.now = ask.window.last_inbound_and_now(d.address)
        else:
            last = ask.window.last_inbound_ms(d.address)
        if window_open(last, ask.now):
            out.append(d)
            continue
        sid = template_sid(ask.config, ask.kind, ask.lang)
        if sid:
            out.append(Destination(d.address, WHATSAPP, Template(sid)))
            continue
        log.warning("whatsapp window closed and no template for %s/%s: the next linked channel", ask.kind or "-",
                    ask.lang, extra={"player": logs.pseudonym(d.address), "channel": WHATSAPP, "code": WINDOW_CLOSED})
        if d.address == ask.home:
            ask.held = WINDOW_CLOSED
    return out


def drop_unreachable(ask: Ask, found: list[Destination]) -> list[Destination]:
    """The receipts' step: without the addresses delivery receipts marked unreachable. The home's mark comes with its
    route (the same life hash); the linked addresses' are read, in one round trip (none for a player with no link)."""
    others = [d.address for d in found if d.address != ask.route.home]
    codes = dict(zip(others, ask.reach.unreachable_many(others))) if others else {}
    codes[ask.route.home] = ask.route.unreach
    return [d for d in found if not codes.get(d.address)]


#: The kinds of message a push takes: a move owed (or the game's news: the end of a hand, of the game), a reminder.
#: Anything else (an invitation, a LINK code, a confirmation) goes by the player's other channels.
PUSH_KINDS = ("turn", "update", "reminder")


def push_step(ask: Ask, found: list[Destination]) -> list[Destination]:
    """A push candidate (a browser a game page notifies, :mod:`service.webpush`) is kept for :data:`PUSH_KINDS`
    while push is on (a VAPID key set); otherwise dropped, and the next candidate takes the message."""
    if ask.kind in PUSH_KINDS and ask.config.get("PUSH_VAPID_PRIVATE_KEY"):
        return found
    return [d for d in found if d.channel != PUSH]


#: The steps, in order, after the candidates are ordered (``VIA`` first, the free channels, then link order) and
#: stopped ones dropped.
#: - receipts: drop the addresses the providers' receipts say are unreachable (``service.store.reach``);
#: - push: a push candidate only for a move owed, the game's news and reminders (:func:`push_step`);
#: - whatsapp: a WhatsApp candidate outside its 24-hour window goes as the template configured for (kind, lang),
#:   else it is dropped (the next candidate takes it) and the operator's log says so, without the address.
STEPS: list[Step] = [drop_unreachable, push_step, whatsapp_step]

KINDS = (SMS, EMAIL, WHATSAPP, TELEGRAM, PUSH)  # what VIA may name besides one address
#: the channels that cost nothing to send (service.prices): taken before the paid ones unless VIA names another
FREE = (TELEGRAM, PUSH)

_REPLYING: ContextVar[tuple[str, str] | None] = ContextVar("slowspades_replying", default=None)


@contextmanager
def replying(home: str, origin: str) -> Iterator[None]:
    """While an inbound message from ``origin`` (acting for ``home``) is handled: what is written to ``home`` goes
    back to ``origin`` (rule 1 of the module docstring)."""
    token = _REPLYING.set((home, origin))
    try:
        yield
    finally:
        _REPLYING.reset(token)


def reply_origin(home: str) -> str | None:
    """The address the inbound message being handled came from, if it is ``home``'s; else None."""
    now = _REPLYING.get()
    return now[1] if now is not None and now[0] == home else None


def reply_to(home: str) -> str:
    """Where a reply to ``home`` goes: the address their message being handled came from, else ``home``. A reply
    is never routed by ``VIA``: it answers the address that wrote."""
    return reply_origin(home) or home


def reply_channel(home: str) -> str:
    """The channel a reply to ``home`` is rendered for (:func:`reply_to`'s)."""
    return address_kind(reply_to(home))


def via_first(route: Route, address: str) -> bool:
    """Whether ``address`` (one of the route's) is what ``VIA`` named: the address itself, or one of the kind named."""
    return address == route.via or (route.via in KINDS and address_kind(address) == route.via)


def candidates(route: Route) -> list[Destination]:
    """The home's addresses that have not sent STOP: what ``VIA`` named first (an address, or those of a kind), then
    the free channels (:data:`FREE`: Telegram, push), then in link order."""
    reachable = sorted(route.reachable(), key=lambda a: address_kind(a) not in FREE)  # stable: link order kept
    if route.via:
        reachable = sorted(reachable, key=lambda a: not via_first(route, a))
    return [Destination.to(a) for a in reachable]


def reachable(config: Config, store: Store, links: Links, reach: Reach, home: str) -> bool:
    """Whether any address of the player ``home`` that has not sent STOP can be reached, as far as the delivery
    receipts tell."""
    route = links.route(home)
    return bool(drop_unreachable(Ask(config, store, reach, home, "", "", route=route), candidates(route)))


def destination(config: Config, store: Store, links: Links, reach: Reach, home: str, kind: str, lang: str,
                now_ms: int | None = None, *,
                life: Mapping[str, str] | None = None, without: str = "") -> Destination:
    """Where message ``kind`` (in ``lang``) to the player ``home`` goes now (the module docstring).

    ``life``: the home's life hash if the caller read it (a move's read of its players has: no read here then);
    ``now_ms``: the service clock, if the caller has it; ``without``: a channel left out (a prompt that went by
    push and was not seen goes by another: :mod:`service.lifecycle.push_fallback`)."""
    route = Route.of(home, life) if life is not None else links.route(home)
    return destination_by(config, store, reach, route, kind, lang, now_ms, without=without)


def destination_by(config: Config, window: Window, reach: Marks, route: Route, kind: str, lang: str,
                   now_ms: int | None = None, *, without: str = "") -> Destination:
    """:func:`destination` of the player whose route (home, linked addresses, STOPs) is ``route``, asking
    ``window`` and ``reach`` what the steps need (a move's compose: what it read before, no gateway)."""
    home = route.home
    origin = reply_origin(home)
    if origin is not None and not route.is_off(origin):  # (from an address that sent STOP: where the route says)
        return Destination.to(origin)
    found = [d for d in candidates(route) if d.channel != without]
    ask = Ask(config, window, reach, home, kind, lang, now_ms, route)
    for step in STEPS:
        if not found:
            break
        found = step(ask, found)
    return found[0] if found else Destination(home, address_kind(home), held=ask.held)
