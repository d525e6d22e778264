"""What a player's message asks for: an :class:`Intent`, an engine command waiting for its seat or a meta command.

:func:`chat.parse.parse` makes them (each through a :class:`Say`, which gives every intent of one message its text and
its ``#N`` prefix); :meth:`Intent.command` adapts the few replies whose meaning depends on the phase (a single card
during the exchange, ``0`` or ``NONE`` meaning swap nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from spades.cards import Card
from spades.commands import Bid, Command, DeclareDoubleNil, DeclineDoubleNil, Discard, Exchange, Forfeit, Keep, Play
from spades.events import HouseRules
from spades.plans import Plan

#: Intent kinds that become an engine command (see :meth:`Intent.command`).
ENGINE_KINDS = frozenset({"double_nil", "draw", "keep", "discard", "exchange", "bid", "play", "resign"})
#: Intent kinds the service handles itself.
META_KINDS = frozenset({
    "stop", "start", "help", "hand", "score", "rules", "lang", "new", "yes", "no", "games",
    "remind", "pause", "tz", "auto", "autoplay", "dn_setting", "claim", "rematch", "name", "web",
    "link", "unlink", "via", "plan", "say", "mute", "unmute", "last", "stats",
})


@dataclass(frozen=True, slots=True)
class Intent:
    """What a player's message asks for.

    ``kind`` is one of :data:`ENGINE_KINDS`, :data:`META_KINDS` or ``"unknown"``.
    Arguments, depending on the kind:

    * ``play``: ``card``; ``exchange``: ``cards`` (0 to any number; the engine checks 0-3);
      ``bid``: ``number`` (0 is nil; out-of-range numbers are left to the engine);
    * ``lang``: ``arg`` = a supported language code; ``rematch``: ``arg`` = ``"easier"`` or ``"harder"``
      (the computer one level down or up) or None; ``new``: ``arg`` = ``"BOT"`` (``"BOT EASY"``,
      ``"BOT NORMAL"``, ``"BOT HARD"``: the computer's level), an
      E.164-ish phone number (``+33612345678``) or an email address, and ``rules``;
      ``remind`` / ``auto`` / ``autoplay`` / ``dn_setting``: ``flag`` (True = on; ``dn_setting`` on =
      "ask me DN or DRAW at each hand", off = "always DRAW"); ``pause``: ``number`` (days, 0 to end a pause: ``PAUSE 0``, ``RESUME``;
      None if not given); ``tz``: ``arg`` = the zone name as typed; ``name``: ``arg`` = the
      name the player chose (checked by :func:`chat.names.check_name`: GSM-7, 1 to 12 characters,
      not a phone number or an address); ``link``: ``arg`` = an address to link to the player's (E.164-ish
      number, ``whatsapp:+<number>`` or an email address), or the six-digit code sent back from it; ``unlink``:
      ``arg`` = the address to unlink, or None (the one the message came from); ``via``: ``arg`` = ``sms``,
      ``email``, ``whatsapp`` or one address;
    * ``stop`` / ``start`` / ``help``: ``carrier`` is True for the carrier-reserved words
      (Twilio acts on those itself), False for a local word (``ARRET``, ``STOPP``...)
      the service must honour on its own;
    * ``unknown``: ``reason`` is ``empty``, ``too_long``, ``bad_card`` (``arg`` = the token),
      ``bad_lang`` (``arg`` = what was typed), ``missing_arg`` (``arg`` = the command word),
      ``bad_address`` (``NEW`` with something that is neither a number nor an address; ``arg`` =
      it), ``bad_link`` (the same after ``LINK`` / ``UNLINK``), ``bad_name`` (``arg`` = the name refused), ``greeting`` (``HI``, ``BONJOUR``...: say
      what this is), ``bad_number`` or ``not_understood``.
    * ``say``: ``arg`` = the line for the opponent, as typed (its whitespace one space; not trimmed to a length:
      :mod:`service.lifecycle.talk` does, saying so); ``mute`` / ``unmute``: no argument (the talk off or on).
    * ``stats``: the player's record (games, wins, bids and nils made), no argument.
    * ``last``: the trick played before (or the decided tricks that ended a hand), no argument.
    * ``web``: the link of the player's private page of the game (issue 14), no argument.
    * ``plan`` (answers given ahead, RULES D12): ``plan`` = the entries given (a :class:`spades.plans.Plan` of hand
      0: the service puts it in the hand in play), ``flag`` False for ``PLAN OFF`` (clear it), neither for ``PLAN``
      (show it). ``IF H 4H S AS D LOW C WIN`` (the follows for the next trick), ``ALWAYS D LOW`` (for every trick of
      the hand), ``LEAD AS KS`` (the next leads, in order), ``BID 0-3 5 4+ 3`` (a bid by the opponent's; a plain
      ``BID 4`` is a ``bid``, which the service keeps as a plan when the player's turn to bid has not come),
      ``DN HIGH`` (double nil, throwing the three highest cards in the exchange: ``double_nil`` with ``plan``).
      Unknown with the reason ``bad_plan`` (``arg``: the word at fault).

    ``game`` is the ``#N`` prefix (None when absent); ``text`` the message as received.
    """

    kind: str
    game: Optional[int] = None
    card: Optional[Card] = None
    cards: tuple[Card, ...] = ()
    number: Optional[int] = None
    flag: Optional[bool] = None
    arg: Optional[str] = None
    rules: Optional[HouseRules] = None
    reason: Optional[str] = None
    carrier: bool = False
    plan: Optional[Plan] = None
    text: str = field(default="", compare=False)

    @property
    def is_engine(self) -> bool:
        return self.kind in ENGINE_KINDS

    @property
    def is_unknown(self) -> bool:
        return self.kind == "unknown"

    def command(self, seat: int, phase: str | None = None) -> Command | None:
        """The engine command this intent is for the player at ``seat`` (None for meta and unknown intents).

        ``phase`` (the game's phase) resolves the replies whose meaning depends on it:
        during the exchange a lone card or a bare ``0`` is an exchange.
        """
        k = self.kind
        if k == "keep":
            return Keep(seat)
        if k == "discard":
            return Discard(seat)
        if k == "double_nil":
            return DeclareDoubleNil(seat)
        if k == "draw":
            return DeclineDoubleNil(seat)
        if k == "resign":
            return Forfeit(seat, "resigned")
        if k == "exchange":
            return Exchange(seat, tuple(self.cards))
        if k == "play":
            assert self.card is not None
            if phase == "exchange":
                return Exchange(seat, (self.card,))
            return Play(seat, self.card)
        if k == "bid":
            assert self.number is not None
            if phase == "exchange" and self.number == 0:
                return Exchange(seat, ())
            return Bid(seat, self.number)
        return None


@dataclass(frozen=True)
class Say:
    """Builds the intents of one message: each carries the message's text and its ``#N`` prefix."""

    text: str
    game: Optional[int] = None

    def __call__(self, kind: str, *, card: Optional[Card] = None, cards: tuple[Card, ...] = (),
                 number: Optional[int] = None, flag: Optional[bool] = None, arg: Optional[str] = None,
                 rules: Optional[HouseRules] = None, reason: Optional[str] = None, carrier: bool = False,
                 plan: Optional[Plan] = None) -> Intent:
        return Intent(kind, game=self.game, card=card, cards=cards, number=number, flag=flag, arg=arg, rules=rules,
                      reason=reason, carrier=carrier, plan=plan, text=self.text)
