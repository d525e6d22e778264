"""Security headers on every response (issue 22 case 5): a Content-Security-Policy without inline script
(the pages have none; the simulator's script is a file), no framing, no MIME sniffing.

Inline ``<style>`` blocks stay allowed (the game and rules pages carry their few rules inline); nothing
else may load from anywhere but this origin.
"""

from __future__ import annotations

from flask import Flask, Response

CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; "
       "base-uri 'none'; frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def install(app: Flask) -> None:
    """Add :data:`HEADERS` to every response of ``app`` (error pages included) that does not set its own."""

    @app.after_request
    def secure(resp: Response) -> Response:
        for name, value in HEADERS.items():
            resp.headers.setdefault(name, value)
        return resp
