"""The errors a sender raises when a provider does not take a message (:mod:`service.delivery` and the senders
of their own modules, :mod:`service.webpush`): Celery retries a transient one, a permanent one fails the entry."""

from __future__ import annotations


class SendError(Exception):
    """A provider did not take a message; ``code``: its error code (Twilio's, or the HTTP status; SMTP's reply
    code), or ``network`` (the metrics' label)."""

    def __init__(self, message: str, code: object = "network") -> None:
        super().__init__(message)
        self.code = str(code)


class TransientSendError(SendError):
    """The provider could not take the message now; try again later."""


class PermanentSendError(SendError):
    """The provider refused the message for good (a bad number, a rejected address)."""
