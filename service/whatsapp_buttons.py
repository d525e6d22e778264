"""WhatsApp's buttons: inside a player's 24-hour window, a message that offers answers goes with them, one tap each.

The answers are the message's :attr:`chat.render.Rendered.replies` (DN/DRAW, K/D, the bids, the playable cards; an
invitation's YES/NO), each with the data a Telegram button carries (:func:`service.telegram.buttons`: the answer as
typed and the tag of the question it answers), so a tap comes back as the same :class:`service.telegram.Tap` and is
played by the same rule (:mod:`service.lifecycle.buttons`: only while a game of the player still asks that question).

Twilio sends them through its Content API: a message is a Content resource (``ContentSid``) and its
``ContentVariables``. Outside the window nothing changes: no buttons, the approved templates (:mod:`service.whatsapp`).

* 1 to 3 answers: ``twilio/quick-reply`` (WhatsApp shows at most 3 buttons in a session message; a title at most
  :data:`TITLE_MAX` characters, an id at most :data:`ID_MAX`);
* 4 to 10: ``twilio/list-picker`` (at most 10 items: an item's title :data:`ITEM_MAX`, its description
  :data:`DESCRIPTION_MAX`), the list's button "Choose" in the player's language;
* 11 to 19 (the bids 0-13, 11 to 13 playable cards): the list's first nine, and a tenth, "More…", whose id carries the
  rest (:data:`MORE` and their answers): tapped, it is answered with a second list of the rest, under the same tag
  (:func:`service.lifecycle.buttons.rest`); so every answer is one tap away, or two;
* more (the exchange's pairs of cards): no buttons; the answer is typed, or made on the game page.

The body above the buttons is the message's own text; past :data:`BODY_MAX` characters its beginning goes first as
plain text and the last :data:`BODY_MAX` carry the buttons.

**Content resources.** Every word of a message is a variable (the body, each title, id and description, the list's
button), so one resource serves a shape: its kind and its number of answers (``quick-reply.2``, ``list-picker.10``:
at most 2 + 2 + 10 + 1 = 15 resources). Each is made through the Content API (``POST /v1/Content``) the first time a
message needs it, and kept in Redis per Twilio account (:meth:`service.store.window.WhatsAppWindows.content_sid`): the
first one kept wins when two workers make one at once. Session messages need no WhatsApp approval.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Mapping, Sequence

from twilio.base.exceptions import TwilioException, TwilioRestException
from twilio.rest import Client as TwilioClient
from twilio.rest.content.v1.content import ContentList

from chat.render import whatsapp_parts
from chat.taps import button_label, list_words

from .store import Store
from .telegram import Tap, callback_data

log = logging.getLogger(__name__)

QUICK, LIST = "twilio/quick-reply", "twilio/list-picker"
QUICK_MAX = 3  # buttons of a quick reply sent in session
LIST_MAX = 10  # items of a list picker
OFFER_MAX = 2 * LIST_MAX - 1  # nine, and "More…" with the other ten at most
BODY_MAX = 1024  # the body above the buttons
TITLE_MAX = 20  # a quick reply's title; a list's button
ITEM_MAX = 24  # a list item's title
DESCRIPTION_MAX = 72  # a list item's description
ID_MAX = 200  # a button's or an item's id
MORE = "+"  # the answer of the item that sends the rest: "+" and their answers, space-separated


class ContentUnavailable(Exception):
    """The Content API did not make a resource: ``transient`` (no answer, 429, 5xx) or refused (``code``)."""

    def __init__(self, message: str, transient: bool, code: object = "network") -> None:
        super().__init__(message)
        self.transient = transient
        self.code = str(code)


def offered(pairs: Sequence[Sequence[str]]) -> bool:
    """Whether a message offering these answers (``[label, data]``) goes with WhatsApp buttons: at most
    :data:`OFFER_MAX`, and past :data:`LIST_MAX` only answers of one word ("More…" carries them space-separated)."""
    if not 0 < len(pairs) <= OFFER_MAX or any(len(d) > ID_MAX for _label, d in pairs):
        return False
    return len(pairs) <= LIST_MAX or all(" " not in (Tap.of(d) or Tap("", " ")).reply for _label, d in pairs)


def items(pairs: Sequence[Sequence[str]], lang: str) -> list[tuple[str, str, str]]:
    """The ``(title, id, description)`` of each button: every answer (its description: the answer as typed), or past
    :data:`LIST_MAX` the first nine and "More…", whose id carries the rest (its description: their titles)."""
    out = [(label, data, (Tap.of(data) or Tap("", "")).reply) for label, data in pairs]
    if len(out) <= LIST_MAX:
        return out
    head, rest = out[:LIST_MAX - 1], out[LIST_MAX - 1:]
    tag = (Tap.of(head[0][1]) or Tap("", "")).tag
    more = callback_data(MORE + " ".join(reply for _t, _d, reply in rest), tag)
    return [*head, (list_words(lang)[1], more, " ".join(t for t, _d, _r in rest)[:DESCRIPTION_MAX])]


def rest_pairs(tap: Tap) -> list[list[str]]:
    """The answers a "More…" item carries, as buttons under its tag; none if it carries none, or too many."""
    replies = tap.reply[len(MORE):].split() if tap.reply.startswith(MORE) else []
    if not 0 < len(replies) <= LIST_MAX:
        return []
    return [[button_label(r), callback_data(r, tap.tag)] for r in replies]


def kind_of(n: int) -> str:
    return QUICK if n <= QUICK_MAX else LIST


def shape(kind: str, n: int) -> str:
    """A Content resource's shape: ``quick-reply.3``."""
    return f"{kind.split('/')[1]}.{n}"


def _fields(kind: str, n: int) -> dict[str, Any]:
    """The content type's data, every word a variable: the body ``{{1}}``, then each button's or item's."""
    if kind == QUICK:
        return {"body": "{{1}}", "actions": [{"type": "QUICK_REPLY", "title": f"{{{{{2 + 2 * i}}}}}",
                                              "id": f"{{{{{3 + 2 * i}}}}}"} for i in range(n)]}
    return {"body": "{{1}}", "button": "{{2}}",
            "items": [{"item": f"{{{{{3 + 3 * i}}}}}", "id": f"{{{{{4 + 3 * i}}}}}",
                       "description": f"{{{{{5 + 3 * i}}}}}"} for i in range(n)]}


def content_request(kind: str, n: int) -> dict[str, Any]:
    """The Content API's create request of a shape (with a ``twilio/text`` fallback: the body alone)."""
    fields = _fields(kind, n)
    names = [v.strip("{}") for v in _flatten(fields)]
    return {"friendly_name": f"slowspades_{shape(kind, n).replace('-', '_').replace('.', '_')}", "language": "en",
            "variables": {name: f"sample {name}" for name in names},
            "types": {kind: fields, "twilio/text": {"body": "{{1}}"}}}


def _flatten(fields: Mapping[str, Any]) -> list[str]:
    """The variables of a content type's data, in order."""
    out: list[str] = []
    for key, value in fields.items():
        if isinstance(value, list):
            for part in value:
                out.extend(v for k, v in part.items() if k != "type")
        elif key != "type":
            out.append(value)
    return out


def variables(kind: str, body: str, shown: Sequence[tuple[str, str, str]], button: str) -> str:
    """``ContentVariables`` (JSON) of a message of ``kind`` with ``body`` above these buttons."""
    values: dict[str, str] = {"1": body}
    if kind == QUICK:
        for i, (title, data, _desc) in enumerate(shown):
            values.update({str(2 + 2 * i): title[:TITLE_MAX], str(3 + 2 * i): data})
    else:
        values["2"] = button[:TITLE_MAX]
        for i, (title, data, desc) in enumerate(shown):
            values.update({str(3 + 3 * i): title[:ITEM_MAX], str(4 + 3 * i): data,
                           str(5 + 3 * i): desc[:DESCRIPTION_MAX] or title[:DESCRIPTION_MAX]})
    return json.dumps(values, ensure_ascii=False)


def split_body(body: str) -> tuple[tuple[str, ...], str]:
    """The plain texts before the buttons (none if ``body`` fits above them) and the text above them: at most
    :data:`BODY_MAX` characters, its end, cut at a space."""
    if len(body) <= BODY_MAX:
        return (), body
    cut = body.find(" ", len(body) - BODY_MAX)
    cut = cut if cut > 0 else len(body) - BODY_MAX
    return whatsapp_parts(body[:cut].rstrip()), body[cut:].strip()


def content_sid(store: Store, client: TwilioClient, account: str, kind: str, n: int) -> str:
    """The ContentSid of a shape: kept, or made now (and kept). Raises :class:`ContentUnavailable`."""
    sid = store.content_sid(account, shape(kind, n))
    if sid:
        return sid
    try:
        made = client.content.v1.contents.create(ContentList.ContentCreateRequest(content_request(kind, n)))
    except TwilioRestException as exc:
        transient = exc.status == 429 or exc.status >= 500
        raise ContentUnavailable(f"twilio content {exc.status} ({exc.code}): {exc.msg}", transient,
                                 exc.code or exc.status) from exc
    except (TwilioException, OSError) as exc:
        raise ContentUnavailable(f"twilio content: {exc}", True) from exc
    log.info("whatsapp content %s made: %s", shape(kind, n), made.sid)
    return store.keep_content_sid(account, shape(kind, n), str(made.sid))


def messages(cfg: Mapping[str, Any], store: Store, client: TwilioClient, entry: Mapping[str, Any]) -> list[dict[str, str]]:
    """The Messages API's fields of each message a WhatsApp entry with ``buttons`` goes as (its text first, if too
    long to sit above them; then the buttons); none when it has none, or buttons are off
    (``SLOWSPADES_WHATSAPP_BUTTONS``), or the Content API refused the shape (logged: the text goes alone).
    Raises :class:`ContentUnavailable` when the Content API could not answer now."""
    pairs = entry.get("buttons") or []
    if not cfg.get("WHATSAPP_BUTTONS", True) or not offered(pairs):
        return []
    lang = str(entry.get("lang") or "en")
    shown = items(pairs, lang)
    kind = kind_of(len(shown))
    try:
        sid = content_sid(store, client, str(cfg.get("TWILIO_ACCOUNT_SID") or ""), kind, len(shown))
    except ContentUnavailable as exc:
        if exc.transient:
            raise
        log.warning("whatsapp buttons not sent, the text alone: %s", exc)
        return []
    head, last = split_body(str(entry["body"]))
    return [*({"body": part} for part in head),
            {"content_sid": sid, "content_variables": variables(kind, last, shown, list_words(lang)[0])}]


def shown(cfg: Mapping[str, Any], entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The buttons a WhatsApp entry shows (``title``, ``id``, and ``list``: an item of a list, else a quick reply): what
    :func:`messages` sends, for the simulator's WhatsApp phone (the local outbox sends nothing to Twilio)."""
    pairs = entry.get("buttons") or []
    if entry.get("content_sid") or not cfg.get("WHATSAPP_BUTTONS", True) or not offered(pairs):
        return []
    its = items(pairs, str(entry.get("lang") or "en"))
    return [{"title": title, "id": data, "list": kind_of(len(its)) == LIST} for title, data, _desc in its]

