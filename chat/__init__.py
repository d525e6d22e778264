"""slowspades' conversation layer (pure): what players text in, what they get back, in five languages.

No I/O beyond reading ``templates/`` and ``chat/locale/``. Languages: ``en fr nb id el``.

Parsing
    ``parse(text: str, lang: str) -> Intent`` never raises. ``Intent.kind`` is an engine kind
    (``double_nil draw keep discard exchange bid play resign``), a meta kind (``stop start help
    hand score rules lang new yes no games remind pause tz auto dn_setting claim rematch name``)
    or ``unknown`` (``Intent.reason``: ``empty too_long bad_card bad_lang missing_arg bad_number
    bad_address bad_name greeting not_understood``). ``name``: ``NAME Ana`` (``arg`` = the name,
    already checked by ``chat.names.check_name``); ``greeting``: ``HI``, ``BONJOUR``... (its
    ``explain_error`` without a game is the ``welcome``). ``Intent.game`` is the ``#N`` prefix or None.
    ``Intent.command(seat, phase=None) -> Command | None`` builds the engine command (pass the
    game's phase: during the exchange a lone card or ``0`` means an exchange). ``resign`` gives
    ``Forfeit(seat, "resigned")``; ask for confirmation first if you like (template
    ``confirm_resign``). STOP/START/HELP: ``Intent.carrier`` says whether the carrier (Twilio)
    already acted on the word; local words (``ARRET``, ``STOPP``, ``BERHENTI``...) must be
    honoured by the service itself. ``dn_setting`` flag False = "never ask DN, DRAW at once".

Turn messages (call for BOTH seats after every decided command)
    ``message_for(view, lang, channel, events, opponent_name, game_label="", level=None) -> Rendered | None``:
    the turn prompt if ``view`` is to move, else a notice when the events tell the waiting
    player something new (end of hand, end of game), else None. ``events`` = the
    ``spades.events.redact(e, seat)`` dicts since the last message actually SENT to that seat
    (keep a per-seat cursor; do not advance it when nothing is sent, so news accumulate).
    ``prompt(view, lang, channel, events=None, opponent_name="", game_label="", level=None) -> Rendered``:
    force the prompt (``HAND``; ``events=None`` = resend from the view alone). ``level``: the computer's level
    (``easy``, ``normal``, ``hard``) when it is the opponent, which the game's first message names.
    ``notice(...) -> Rendered | None``: the waiting player's part alone.
    D3 flow: at a player's first draw decision of a hand the prompt offers ``DN`` or ``DRAW``;
    when the player's standing setting is off, the service sends ``DeclineDoubleNil`` itself
    and the next prompt shows the card (``chat.simulate`` does exactly this).

Errors
    ``explain_error(error, view, lang, channel, opponent_name="", game_label="") -> Rendered``:
    ``error`` is a ``spades.errors.RuleError``, a ``CardSyntaxError`` or an unknown ``Intent``;
    ``view`` may be None (no game). Says why, then what may be sent now.

Any other message
    ``render(name, lang, channel, **context) -> Rendered`` renders ``templates/sms/<name>.txt.j2``
    or ``templates/email/<name>.txt.j2`` + ``.html.j2``. Names and their context are listed in
    each template's first comment: help, rules(url, target), score, stopped, started, lang_set,
    setting(setting, value), games(games), invite(opp, target), invite_sent(opp), declined(opp),
    game_started(label, opp, first, target), reminder(label, opp), confirm_resign(label, opp),
    welcome (the first answer to a new number: what this is and the three ways to start).
    Game situations (rendered by the functions above): dn_offer, draw, exchange, bid, play,
    waiting, hand_over, game_over, error.

Channels: ``sms``, ``whatsapp`` (the SMS templates in full Unicode: no GSM-7 folding, Greek in lower case
with accents, one message per reply up to Twilio's 1,600 characters) and ``email``.

``Rendered(text, subject=None, html=None, replies=(), channel="sms")``: ``text`` is the SMS (one line, GSM-7
only, Greek in GSM capitals), the WhatsApp text (one line, as the catalogue writes it) or the email's plain
text; ``.segments`` its SMS cost; ``.parts`` the provider messages it goes out as (one, but for a WhatsApp
text past 1,600 characters); ``replies`` the literal replies the message offers. Other helpers: ``chat.gsm`` (``is_gsm7``,
``segments``, ``to_gsm7``), ``chat.names`` (``display_name``: a chosen name, or ``+30..5678`` /
``dave@..`` for an address in an SMS; ``check_name``), ``chat.languages`` (``language_for_address``,
``language_for_phone``, ``normalize_language``, ``LANGUAGES``), ``chat.simulate.play_game``
(a whole game through this layer: the reference message flow).
"""

from .gsm import is_gsm7, segments, to_gsm7
from .intent import Intent
from .languages import LANGUAGES, language_for_address, language_for_phone, normalize_language
from .messages import explain_error, message_for, notice, prompt
from .parse import parse
from .render import Rendered, render

__all__ = [
    "Intent", "parse", "Rendered", "render", "prompt", "notice", "message_for", "explain_error",
    "LANGUAGES", "language_for_address", "language_for_phone", "normalize_language", "is_gsm7", "segments",
    "to_gsm7",
]
