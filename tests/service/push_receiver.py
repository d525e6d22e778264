"""A local push service at its HTTP boundary, the receiving side of Web Push: a real HTTP server on 127.0.0.1 that
takes ``POST /push/<n>`` as a push service takes a push (RFC 8030), checks its VAPID ``Authorization: vapid
t=<JWT>,k=<key>`` (RFC 8292: an ES256 JWT signed by the key ``k``, its ``aud`` this server's origin, ``exp`` within
a day, a ``sub``), and decrypts its ``aes128gcm`` body with the browser's private key and auth secret (RFC 8291,
``http_ece``), as a browser would. It answers 201, or what the test set for the subscription (404, 410, 502...).

:meth:`PushReceiver.subscription` makes a browser's subscription: a fresh P-256 key pair and auth secret, the
endpoint on this server; what the browser's ``pushManager.subscribe`` would give the page."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One subscription's receiving side: its endpoint, its key pair and auth secret."""

    n: int
    endpoint: str
    key: ec.EllipticCurvePrivateKey
    auth: bytes

    def subscription(self) -> dict[str, Any]:
        """As ``PushSubscription.toJSON()`` writes it."""
        public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}


@dataclass
class Received:
    """A push taken: the browser it was for, its headers (their names in lower case), the VAPID key that signed it, and its decrypted payload."""

    n: int
    headers: dict[str, str]
    vapid_key: str
    claims: dict[str, Any]
    payload: dict[str, Any] = field(default_factory=dict)


class PushReceiver:
    """The push service (module docstring). ``received``: the pushes it took, in order; ``refused``: what it answered
    otherwise (status, reason); ``answer[n]``: the status to answer pushes to browser ``n`` with (default 201)."""

    def __init__(self) -> None:
        self.browsers: dict[int, Browser] = {}
        self.received: list[Received] = []
        self.refused: list[tuple[int, str]] = []
        self.answer: dict[int, int] = {}
        self.requests = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = receiver.take(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                self.send_response(status)
                if status == 201:
                    self.send_header("Location", f"{receiver.origin}/message/{len(receiver.received)}")
                elif 300 <= status < 400:  # a redirect, to an address inside: never to be followed
                    self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    @property
    def origin(self) -> str:
        return f"http://{self.host}"

    def start(self) -> "PushReceiver":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def browser(self) -> Browser:
        """A new subscription on this server."""
        with self.lock:
            n = len(self.browsers) + 1
            b = Browser(n, f"{self.origin}/push/{n}-{b64url(os.urandom(12))}", ec.generate_private_key(ec.SECP256R1()),
                        os.urandom(16))
            self.browsers[n] = b
        return b

    def payloads(self, n: int | None = None) -> list[dict[str, Any]]:
        """The decrypted payloads received (for browser ``n``, or all)."""
        return [r.payload for r in self.received if n is None or r.n == n]

    def take(self, path: str, headers: dict[str, str], body: bytes) -> int:
        with self.lock:
            self.requests += 1
            try:
                n = int(path.removeprefix("/push/").split("-", 1)[0])
                browser = self.browsers[n]
            except (ValueError, KeyError):
                self.refused.append((404, "unknown subscription"))
                return 404
            if not browser.endpoint.endswith(path):
                self.refused.append((404, "unknown subscription"))
                return 404
            if n in self.answer and self.answer[n] != 201:
                self.refused.append((self.answer[n], "as the test asked"))
                return self.answer[n]
            try:
                key, claims = self.check_vapid(headers.get("authorization", ""))
            except ValueError as exc:
                self.refused.append((401, str(exc)))
                return 401
            if headers.get("content-encoding") != "aes128gcm" or not headers.get("ttl"):
                self.refused.append((400, "not aes128gcm, or no TTL"))
                return 400
            try:
                plain = http_ece.decrypt(body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm")
            except Exception as exc:  # noqa: BLE001 - a push it cannot decrypt is refused, whatever the cause
                self.refused.append((400, f"cannot decrypt: {exc}"))
                return 400
            self.received.append(Received(n, headers, key, claims, json.loads(plain)))
            return 201

    def check_vapid(self, authorization: str) -> tuple[str, dict[str, Any]]:
        """The VAPID key and the JWT's claims of ``Authorization: vapid t=...,k=...``; ValueError if it is not a
        valid ES256 token signed by ``k`` for this origin."""
        scheme, _, params = authorization.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError("no vapid authorization")
        parts = dict(p.strip().split("=", 1) for p in params.split(","))
        token, key = parts["t"], parts["k"]
        head, claims_b64, sig = token.split(".")
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        raw = unb64url(sig)
        if len(raw) != 64:
            raise ValueError("not an ES256 signature")
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public.verify(der, f"{head}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise ValueError("bad signature") from None
        if json.loads(unb64url(head)).get("alg") != "ES256":
            raise ValueError("not ES256")
        claims = json.loads(unb64url(claims_b64))
        if claims.get("aud") != self.origin or not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            raise ValueError(f"bad claims {claims}")
        if not time.time() < int(claims.get("exp", 0)) <= time.time() + 86400:
            raise ValueError("expired, or good for more than a day")
        return key, claims
