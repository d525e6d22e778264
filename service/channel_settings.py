"""The settings of the free channels, Telegram's Bot API and Web Push to the game page: fields of
:class:`service.config.Settings` (which declares the rest), each the variable ``SLOWSPADES_<NAME>``, kept apart so
that the settings' module stays one a reader can hold."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings


class ChannelSettings(BaseSettings):
    """Telegram (docs/channels.md#telegram) and Web Push (docs/channels.md#web-push-the-game-page)."""

    TELEGRAM_BOT_TOKEN: str = Field("", description=
        "The Telegram bot's token (from @BotFather). Empty: Telegram messages go to the local outbox "
        "(docs/channels.md#telegram).")
    TELEGRAM_SECRET: str = Field("", description=
        "The secret_token given to setWebhook (1-256 of A-Z a-z 0-9 _ -): every update to /telegram must carry it "
        "in X-Telegram-Bot-Api-Secret-Token. Empty: /telegram refuses every update.")
    TELEGRAM_API_URL: str = Field("https://api.telegram.org", description=
        "The Bot API's base URL (a local Bot API server, or a test's).")
    TELEGRAM_BOT_NAME: str = Field("", description=
        "The bot's username (without @): an invitation then carries a t.me link that lets the friend play it on "
        "Telegram (docs/channels.md#telegram); empty: none.")
    TELEGRAM_TIMEOUT: float = Field(10.0, description="Seconds a Bot API call may take before it is tried again later.")
    PUSH_VAPID_PRIVATE_KEY: str = Field("", description=
        "The VAPID private key that signs every Web Push (RFC 8292): a P-256 key, base64url raw (32 bytes) or PEM. "
        "Empty: no game page offers 'Notify me here' (docs/channels.md#web-push-the-game-page).")
    PUSH_VAPID_SUBJECT: str = Field("", description=
        "The VAPID 'sub' claim push services may contact the operator by (mailto: or https:); empty: mailto: and "
        "the address of SLOWSPADES_MAIL_FROM.")
    PUSH_HOSTS: str = Field("fcm.googleapis.com,updates.push.services.mozilla.com,notify.windows.com,push.apple.com",
                            description=
        "The push services a page's subscription may name, comma separated (a host or a domain: its subdomains "
        "too). Any other endpoint is refused before it is stored, as is one that is not https or whose host resolves "
        "to a loopback, private, link-local or reserved address (docs/security.md#web-push).")
    PUSH_UNSAFE_TEST_HOSTS: str = Field("", description=
        "Tests and local runs only: host:port endpoints taken over http or https even on a loopback or private "
        "address (a local push receiver). Never set in production: it lets a page name an internal address.")
    PUSH_TTL: int = Field(86400, description=
        "Seconds a push service keeps a notification for a browser that is offline (the TTL header, RFC 8030).")
    PUSH_TIMEOUT: float = Field(10.0, description="Seconds a push service may take to answer before it is tried again later.")
    PUSH_FALLBACK_HOURS: float = Field(6.0, description=
        "Hours after a prompt went by push, unanswered and its page not visited, before it goes by the player's "
        "other channel (none: the operator's log says so). 0: never.")
