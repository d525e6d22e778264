"""Web Push to a game page's browser (RFC 8030 delivery, RFC 8291 encryption, RFC 8292 VAPID), through ``pywebpush``
(``http_ece`` encrypts ``aes128gcm``, ``py_vapid`` signs).

* A subscription (what the browser's ``pushManager.subscribe`` gives: an endpoint URL at the browser's push service
  and two keys) is checked before it is stored (:func:`parse_subscription`): an https endpoint at a push service the
  operator allows (``SLOWSPADES_PUSH_HOSTS``), whose host resolves only to public addresses: never a loopback,
  private, link-local or reserved one (no request ever leaves for an internal address). A test's local receiver is
  taken only when ``SLOWSPADES_PUSH_UNSAFE_TEST_HOSTS`` names its ``host:port``. The same check runs again before
  each send (a host's addresses may change), and no redirect is followed.
* Each browser is an address of its own, ``push:<id>`` (a hash of its endpoint), linked to the player
  (:mod:`service.store.links`): routing (:mod:`service.channels`) takes it like any channel, ``VIA PAGE`` names it.
* A push is an outbox entry like any message (:class:`PushSender`, from :func:`service.delivery.deliver`: claimed
  once, Celery's retries, the metrics); its ``Topic`` is a hash of the outbox id, so a push sent again replaces the
  first at the push service rather than showing twice. The payload is short JSON: a title, the message's text and
  the path of the player's page of the game, nothing the page does not show them. A 404 or 410 drops the
  subscription (the browser unsubscribed, or the subscription expired); 429, 5xx and no answer are tried again.
* The endpoint is a bearer capability: it is never logged (the logs name the push address, a hash).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import logging
import socket
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from . import logs
from .addresses import PUSH_PREFIX
from .context import Config
from .send_errors import PermanentSendError, TransientSendError
from .store import Links, PushSubscriptions, Store
from .store.due import Item

log = logging.getLogger(__name__)

#: the longest subscription JSON a page may post (a real one is some 250 to 700 bytes)
SUBSCRIPTION_MAX = 2048
#: the longest endpoint URL taken
ENDPOINT_MAX = 1024
#: the most text a push carries: the payload stays far below RFC 8291's 3,993 octets of plaintext
TEXT_MAX = 240
#: the code of a push the push service says is gone (404, 410): its subscription dropped
GONE = "gone"
#: the due item of a game message sent by push: asked again by another channel if not seen
#: (:mod:`service.lifecycle.push_fallback`)
FALLBACK = "p"

Resolver = Callable[[str, int], list[str]]


class BadSubscription(ValueError):
    """A subscription refused before anything is stored or sent; ``reason``: ``too_long``, ``not_json``, ``not_https``,
    ``host_not_allowed``, ``private_address``, ``bad_keys`` or ``off`` (no VAPID key: push is off)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Subscription:
    """A browser's push subscription: its endpoint and keys (``p256dh``: its P-256 public key, ``auth``: the 16-byte
    secret, both base64url)."""

    endpoint: str
    p256dh: str
    auth: str

    @property
    def address(self) -> str:
        """The push address of this browser (``push:<id>``: 20 hex digits of a hash of the endpoint)."""
        return PUSH_PREFIX + hashlib.sha256(self.endpoint.encode()).hexdigest()[:20]

    def info(self) -> dict[str, Any]:
        """As ``pywebpush`` takes it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _split(raw: object) -> list[str]:
    return [p.strip().lower() for p in str(raw or "").split(",") if p.strip()]


def resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (none if it does not)."""
    try:
        return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)})
    except (OSError, UnicodeError):
        return []


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return ip.is_global and not ip.is_multicast


def endpoint_refusal(cfg: Mapping[str, Any], endpoint: str, resolver: Resolver = resolve) -> str:
    """Why ``endpoint`` may not be sent to (a :class:`BadSubscription` reason), or ``""``: https, a host of
    ``PUSH_HOSTS`` (or one of its subdomains) resolving only to public addresses; or exactly a ``host:port`` of
    ``PUSH_UNSAFE_TEST_HOSTS`` (http or https, any address)."""
    if len(endpoint) > ENDPOINT_MAX:
        return "too_long"
    try:
        parts = urlsplit(endpoint)
        host, port = (parts.hostname or "").lower(), parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return "not_https"
    if parts.username or parts.password or not host:
        return "not_https"
    if f"{host}:{port}" in _split(cfg.get("PUSH_UNSAFE_TEST_HOSTS")) and parts.scheme in ("http", "https"):
        return ""
    if parts.scheme != "https":
        return "not_https"
    if not any(host == h or host.endswith("." + h) for h in _split(cfg.get("PUSH_HOSTS"))):
        return "host_not_allowed"
    found = resolver(host, port)
    if not found or not all(_public(a) for a in found):
        return "private_address"
    return ""


def _b64(value: object, size: int) -> bool:
    """Whether ``value`` is base64url of ``size`` bytes."""
    if not isinstance(value, str) or len(value) > 2 * size:
        return False
    try:
        return len(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))) == size
    except ValueError:
        return False


def parse_subscription(cfg: Mapping[str, Any], raw: bytes, resolver: Resolver = resolve) -> Subscription:
    """The subscription a page posted (the JSON of a ``PushSubscription``), or :class:`BadSubscription` saying why
    not. Nothing is stored or sent here."""
    if not cfg.get("PUSH_VAPID_PRIVATE_KEY"):
        raise BadSubscription("off")
    if len(raw) > SUBSCRIPTION_MAX:
        raise BadSubscription("too_long")
    try:
        data = json.loads(raw)
    except ValueError:
        raise BadSubscription("not_json") from None
    keys = data.get("keys") if isinstance(data, dict) else None
    endpoint = data.get("endpoint") if isinstance(data, dict) else None
    if not isinstance(endpoint, str) or not isinstance(keys, dict):
        raise BadSubscription("not_json")
    reason = endpoint_refusal(cfg, endpoint, resolver)
    if reason:
        raise BadSubscription(reason)
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not _b64(p256dh, 65) or not _b64(auth, 16) or not _on_curve(str(p256dh)):
        raise BadSubscription("bad_keys")
    return Subscription(endpoint, str(p256dh), str(auth))


def _on_curve(p256dh: str) -> bool:
    try:
        Vapid02.from_raw_public(p256dh.encode())
    except ValueError:
        return False
    return True


class VapidKeyError(ValueError):
    """``SLOWSPADES_PUSH_VAPID_PRIVATE_KEY`` is not a P-256 private key (refused at start, :mod:`service.config`)."""


@lru_cache(maxsize=4)
def _vapid(private_key: str) -> Vapid02:
    key = private_key.strip()
    try:
        found = Vapid02.from_pem(key.encode()) if "-----BEGIN" in key else Vapid02.from_string(key)
        if not isinstance(found.private_key.curve, ec.SECP256R1):
            raise ValueError("not on P-256")
    except (ValueError, TypeError, IndexError) as exc:
        raise VapidKeyError("SLOWSPADES_PUSH_VAPID_PRIVATE_KEY is not a P-256 private key (base64url raw or PEM): "
                            f"{type(exc).__name__}; make one with `vapid --gen`") from None
    return found


def vapid(cfg: Mapping[str, Any]) -> Vapid02:
    """The service's VAPID key (``PUSH_VAPID_PRIVATE_KEY``); :class:`VapidKeyError` if it is not one."""
    return _vapid(str(cfg["PUSH_VAPID_PRIVATE_KEY"]))


def public_key(cfg: Mapping[str, Any]) -> str:
    """The VAPID public key as the page's ``applicationServerKey`` (base64url of the uncompressed point); ``""``
    when push is off."""
    if not cfg.get("PUSH_VAPID_PRIVATE_KEY"):
        return ""
    raw = vapid(cfg).public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def subject(cfg: Mapping[str, Any]) -> str:
    """The VAPID ``sub`` claim: ``PUSH_VAPID_SUBJECT``, else ``mailto:`` and the address of ``MAIL_FROM``."""
    given = str(cfg.get("PUSH_VAPID_SUBJECT") or "")
    if given:
        return given
    return "mailto:" + str(cfg.get("MAIL_FROM") or "play@spades.localhost").rsplit("<", 1)[-1].rstrip(">").strip()


def topic(outbox_id: str) -> str:
    """The ``Topic`` of an outbox entry's push (RFC 8030 5.4: at most 32 characters of base64url): a retried push
    replaces the one the push service still holds."""
    return base64.urlsafe_b64encode(hashlib.sha256(outbox_id.encode()).digest()[:24]).decode()


def payload(entry: Mapping[str, Any]) -> bytes:
    """What a push carries (JSON): ``title``, ``body`` (the message's text, cut to :data:`TEXT_MAX` characters),
    ``url`` (the path of the player's page of the game, if any) and ``tag`` (the game: a newer push replaces an older
    one on the screen)."""
    body = str(entry.get("body") or "")
    if len(body) > TEXT_MAX:
        body = body[:TEXT_MAX - 1].rsplit(" ", 1)[0] + "…"
    return json.dumps({"title": "Slow Spades", "body": body, "url": str(entry.get("url") or "/"),
                       "tag": str(entry.get("game") or "slowspades")}, ensure_ascii=False).encode()


class PushSender:
    """Web Push of an outbox entry to its push address's subscription (the module docstring)."""

    name = "webpush"

    def __init__(self, config: Config, store: Store, links: Links, push: PushSubscriptions,
                 resolver: Resolver = resolve) -> None:
        self.cfg = config
        self.store = store
        self.links = links
        self.push = push
        self.resolver = resolver

    def send(self, entry: dict[str, Any]) -> str:
        try:
            sent = self._push(entry)
        except PermanentSendError:
            fallback(self.cfg, self.store, entry,
                     0)  # not shown, nor ever will be: by another channel at the beat's next tick
            raise
        fallback(self.cfg, self.store, entry, int(float(self.cfg.get("PUSH_FALLBACK_HOURS") or 0) * 3_600_000))
        return sent

    def _push(self, entry: dict[str, Any]) -> str:
        address = str(entry["to"])
        stored = self.push.get(address)
        if not stored.get("endpoint"):
            raise PermanentSendError("push: no subscription (dropped)", GONE)
        sub = Subscription(stored["endpoint"], stored.get("p256dh", ""), stored.get("auth", ""))
        reason = endpoint_refusal(self.cfg, sub.endpoint, self.resolver)
        if reason:  # the host's addresses changed, or the operator's list did: nothing leaves for it
            raise PermanentSendError(f"push: endpoint refused ({reason})", reason)
        session = requests.Session()
        session.max_redirects = 0  # a redirect is never followed (it could point inside)
        try:
            resp = webpush(sub.info(), payload(entry), vapid_private_key=vapid(self.cfg),
                           vapid_claims={"sub": subject(self.cfg)}, ttl=int(self.cfg.get("PUSH_TTL") or 86400),
                           timeout=float(self.cfg.get("PUSH_TIMEOUT") or 10.0), requests_session=session,
                           headers={"Topic": topic(str(entry.get("id") or "")), "Urgency": "normal"})
        except WebPushException as exc:
            raise self._refused(address, exc.response.status_code if exc.response is not None else 0) from None
        except requests.TooManyRedirects:
            raise PermanentSendError("push: the push service redirected", "redirect") from None
        except (requests.RequestException, OSError) as exc:
            raise TransientSendError(f"push: {type(exc).__name__}") from None  # (its text may hold the endpoint)
        finally:
            session.close()
        location = resp.headers.get("Location", "") if isinstance(resp, requests.Response) else ""
        return "push-" + hashlib.sha256(location.encode()).hexdigest()[:16]  # (the Location is a capability too)

    def _refused(self, address: str, status: int) -> Exception:
        """The error of a push service's refusal: 404/410 drop the subscription (and the address from its player);
        429 and 5xx are tried again; anything else fails the entry."""
        if status in (404, 410):
            drop(self.links, self.push, address)
            return PermanentSendError(f"push: subscription gone ({status})", GONE)
        if status == 429 or status >= 500 or status == 0:
            return TransientSendError(f"push: {status or 'no answer'}", status or "network")
        return PermanentSendError(f"push: refused ({status})", status)


def fallback(config: Config, store: Store, entry: Mapping[str, Any], after_ms: int) -> None:
    """Schedule the fallback of a game message pushed (or not taken) now: the due item :data:`FALLBACK` of its seat
    at the game's version, ``after_ms`` from now (a delay of 0 from the setting: none)."""
    game_id = str(entry.get("game") or "")
    if not game_id or (after_ms == 0 and not config.get("PUSH_FALLBACK_HOURS")):
        return
    meta = store.meta(game_id)
    home = str(entry.get("home") or "")
    seat = next((s for s in (0, 1) if home and meta.seats[s] == home), None)
    if seat is not None:
        store.due.schedule(Item(FALLBACK, game_id, seat, store.version(game_id)), store.clock.now_ms() + after_ms)


def drop(links: Links, push: PushSubscriptions, address: str, why: str = GONE) -> None:
    """Forget the subscription of ``address`` and unlink it from its player (``why``: the push service said it is
    gone, or a newer browser of the player's ``replaced`` it)."""
    home = push.get(address).get("home") or links.home(address)
    if home and home != address:
        links.unlink(home, address)
    push.drop(address)
    log.info("push subscription dropped", extra={"player": logs.pseudonym(home or address), "channel": "push",
                                                 "code": why})
