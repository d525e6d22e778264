"""Who an inbound email is from, and whether Mailgun vouches for it (issue 15).

An email sender is only ever an email address: a ``From`` that looks like a phone number is
refused, never taken for an SMS player. An email is acted on only when Mailgun's verdict for it
passes, read from the route's post (the ``X-Mailgun-Spf`` and ``X-Mailgun-Dkim-Check-Result``
fields, and the same headers in ``message-headers``, a JSON list of ``[name, value]``; a verdict passes only when
every copy of it says so, so a copy the sender wrote can only lose: :func:`_field`):

* SPF ``Pass`` vouches for the envelope sender (``sender``, SMTP ``MAIL FROM``); it counts only if
  that address's domain is exactly the ``From`` address's domain (a subdomain envelope does not
  count), else anyone with a domain of their own could pass SPF and write any ``From``;
* DKIM ``Pass`` vouches for the domain of the signature that passed, and Mailgun's ``Pass`` does not
  say which one that was when there are several (issue 22 case 2: the attacker's real signature for
  their own domain and a junk one naming the victim's). So it counts only if *every*
  ``DKIM-Signature`` ``d=`` is the ``From`` domain or a parent of it (DMARC's relaxed alignment), and
  every domain an ``Authentication-Results`` header says passed (``dkim=pass header.d=...``) is too;
  signatures of several domains are refused.

A game move by email must also come to that player's per-game reply address, issued to the
address it comes from (:func:`move_allowed`; the token's owner is checked at the webhook); so must
every command that changes a game or a player (:data:`NEEDS_REPLY_ADDRESS`), to a game's reply
address or the player's own one (:func:`command_allowed`). What starts nothing that cannot be undone
(``HELP``, ``RULES``, ``GAMES``, ``WEB``, ``NEW``...) may come to the bare address from a verified sender.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Mapping

from .addresses import EMAIL, BadAddress, parse_address

SPF_FIELD = "X-Mailgun-Spf"
DKIM_FIELD = "X-Mailgun-Dkim-Check-Result"
_DKIM_D = re.compile(r"(?:^|;)\s*d\s*=\s*([^;\s]+)", re.IGNORECASE)
_AR_DKIM_PASS = re.compile(r"\bdkim\s*=\s*pass\b[^;]*?\bheader\.d\s*=\s*([^;\s]+)", re.IGNORECASE)
#: By email, these are taken only at a reply address issued to the sender (issue 22 case 2): they end,
#: pause, claim or answer a game, or change what the player is called, told or sent, or who may act for them
#: (``LINK``: the code mailed to an address carries its own reply address, so a forged ``From`` links nothing).
NEEDS_REPLY_ADDRESS = frozenset({"resign", "yes", "no", "claim", "pause", "auto", "autoplay", "name", "lang",
                                 "stop", "start", "remind", "tz", "dn_setting", "rematch", "link", "unlink", "via"})


class NotAnEmailSender(ValueError):
    """The ``From`` of an email is not an email address (a phone number, say, or nothing)."""


@dataclass(frozen=True)
class Verdict:
    """Mailgun's SPF and DKIM results for one email, and whether they vouch for its ``From``."""

    spf: str
    dkim: str
    verified: bool
    why: str  # when not verified: why, in words an operator (and Mailgun's log) can read


def sender_of(form: Mapping[str, str]) -> str:
    """The email address an inbound email is from (its ``From`` header; the envelope sender if none)."""
    raw = (form.get("from") or form.get("From") or form.get("sender") or "").strip()
    _name, addr = parseaddr(raw)
    if "@" not in (addr or ""):
        raise NotAnEmailSender(raw)
    try:
        parsed = parse_address(addr)
    except BadAddress:
        raise NotAnEmailSender(raw) from None
    if parsed.kind != EMAIL:
        raise NotAnEmailSender(raw)
    return parsed.value


def _headers(form: Mapping[str, str]) -> list[tuple[str, str]]:
    try:
        pairs = json.loads(form.get("message-headers") or "[]")
    except ValueError:
        return []
    out = []
    for pair in pairs if isinstance(pairs, list) else []:
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
            out.append((pair[0], pair[1]))
    return out


def _field(form: Mapping[str, str], headers: list[tuple[str, str]], name: str) -> str:
    """Mailgun's verdict ``name`` (``pass``, ``fail``...; ``""``: none), from every copy of it the post carries: the
    form's fields (each value of a repeated one) and the message's headers. Mailgun adds its own header to the
    message it received, but the sender may have written one of the same name in it already (issue 44 case 10: a
    forged ``Pass`` placed before Mailgun's own used to win, as the first one was read). Which copy is Mailgun's
    cannot be told from the post for certain, so every copy must say ``pass``: Mailgun's own is one of them, and a
    forged ``Pass`` beside Mailgun's ``Fail`` loses, in whatever order they come. (A genuine email carrying a copy from
    an earlier hop that failed is refused too: the safe side.)"""
    getlist = getattr(form, "getlist", None)
    values: list[str] = []
    for key in dict.fromkeys([name, name.lower()]):
        values += [str(v) for v in getlist(key)] if callable(getlist) else [form.get(key) or ""]
    values += [v for k, v in headers if k.lower() == name.lower()]
    words = [v.strip().split()[0].lower() for v in values if v.strip()]
    return next((w for w in words if w != "pass"), "pass") if words else ""


def _domain(address: str) -> str:
    _n, addr = parseaddr(address or "")
    return addr.rpartition("@")[2].strip().lower().rstrip(".") if "@" in (addr or "") else ""


def aligned(signer: str, from_domain: str) -> bool:
    """Whether ``signer`` is ``from_domain`` or a parent domain of it (relaxed alignment)."""
    signer = signer.strip().lower().rstrip(".")
    return bool(signer) and "." in signer and (from_domain == signer or from_domain.endswith("." + signer))


def verdict(form: Mapping[str, str], from_address: str) -> Verdict:
    """Mailgun's verdict on the email of ``form`` as one from ``from_address``."""
    headers = _headers(form)
    spf, dkim = _field(form, headers, SPF_FIELD), _field(form, headers, DKIM_FIELD)
    from_domain = _domain(from_address)
    if spf == "pass" and _domain(form.get("sender") or "") == from_domain and from_domain:
        return Verdict(spf, dkim, True, "")
    signers = {m.group(1).lower().rstrip(".") for k, v in headers if k.lower() == "dkim-signature"
               for m in [_DKIM_D.search(v)] if m}
    passed = {d.lower().rstrip(".") for k, v in headers if k.lower() == "authentication-results"
              for d in _AR_DKIM_PASS.findall(v)}
    if dkim == "pass" and signers and all(aligned(d, from_domain) for d in signers | passed):
        return Verdict(spf, dkim, True, "")
    if spf != "pass" and dkim != "pass":
        why = "neither SPF nor DKIM passed for the sender" if (spf or dkim) else "no SPF or DKIM verdict for the sender"
    elif dkim == "pass" and len(signers | passed) > 1:
        why = (f"DKIM signatures of several domains ({', '.join(sorted(signers | passed))}): "
               "which one passed cannot be told")
    else:
        why = "SPF/DKIM passed for a domain other than the From address's"
    return Verdict(spf, dkim, False, why)


def command_allowed(channel: str, kind: str, own_address: bool) -> bool:
    """Whether a command of ``kind`` from ``channel`` may be taken: by email, one of
    :data:`NEEDS_REPLY_ADDRESS` only when sent to a reply address issued to the sender (``own_address``:
    a game's, or the player's own)."""
    return channel != EMAIL or own_address or kind not in NEEDS_REPLY_ADDRESS


def move_allowed(channel: str, token_game: str | None) -> bool:
    """Whether a game move from ``channel`` may be applied: by email, only one sent to the player's
    own reply address of that game (``token_game``, checked to be issued to the sender)."""
    return channel != EMAIL or token_game is not None
