"""The WhatsApp 24-hour window (a mixin of :class:`service.store.Store`): when each WhatsApp address last wrote.

Meta lets a business send a WhatsApp user free-form messages for 24 hours after the user's last message (the
customer service window); outside it only approved templates go (``service.channels``). The time of a WhatsApp
address's last inbound message is one string key under its hash tag (:func:`~service.store.keys.whatsapp_window`),
written by :meth:`WhatsAppWindows.queue_touch_window` on the webhook's own record pipeline (no round trip of its
own), in ms of the service's clock: the message's receipt time plus the shared clock's offset
(:mod:`service.store.clock`: what the simulator's "Advance clock" moves), read by the script itself. On a Redis
Cluster the offset's key lives on another slot, so there the receipt time is taken as it is (the offset is a
local run's and the tests' device; a deployment's is 0). The value only grows (a message handed over late by the
spool never shortens the window), and the key expires a day after the window closes.

It also keeps the Content resources made for WhatsApp's buttons (:mod:`service.whatsapp_buttons`), one per shape
and Twilio account, made once: :meth:`WhatsAppWindows.content_sid`, :meth:`WhatsAppWindows.keep_content_sid`.
"""

from __future__ import annotations

from typing import Any, Callable

from redis.client import Pipeline
from redis.cluster import RedisCluster

from .base import Client, queue_eval
from .batch import Batch
from .clock import Clock
from .codec import text
from .keys import CLOCK_OFFSET, whatsapp_contents, whatsapp_window

WINDOW_MS = 24 * 3600 * 1000  # Meta's customer service window
KEEP_MS = 2 * WINDOW_MS  # how long the key outlives the message (real time): once closed, it says nothing more

TOUCH_WINDOW_LUA = r"""
-- KEYS: the window, [the clock's offset]; ARGV: receipt ms (real time), keep ms
-- The last inbound time in the service's clock (real time plus the offset), never moved back.
local t = tonumber(ARGV[1])
if KEYS[2] then
  local offset = redis.call('GET', KEYS[2])
  if offset then t = t + math.floor(tonumber(offset) * 1000) end
end
local old = tonumber(redis.call('GET', KEYS[1]) or '0')
if t > old then
  redis.call('SET', KEYS[1], t, 'PX', tonumber(ARGV[2]))
  return t
end
return old
"""


class WhatsAppWindows:
    """The last inbound time of WhatsApp addresses."""

    r: Client
    clock: Clock

    def queue_touch_window(self, pipe: Pipeline, address: str, received_ms: int) -> None:
        """Queue on ``pipe`` (the caller's, of ``address``'s slot) the write of ``address``'s last inbound time:
        ``received_ms`` (real time) plus the clock's offset (not on a cluster: see the module)."""
        keys = [whatsapp_window(address)]
        if self.clock.shared and not isinstance(self.r, RedisCluster):
            keys.append(CLOCK_OFFSET)
        queue_eval(pipe, TOUCH_WINDOW_LUA, keys, [int(received_ms), KEEP_MS])

    def last_inbound_ms(self, address: str) -> int | None:
        """When ``address`` (a WhatsApp address) last wrote, ms of the service's clock; None if not within
        :data:`KEEP_MS` (or never)."""
        pipe = self.r.pipeline(transaction=False)
        finish = self.queue_last_inbound(pipe, address)
        return finish(pipe.execute())

    def last_inbound_and_now(self, address: str) -> tuple[int | None, int]:
        """:meth:`last_inbound_ms` and the service clock's now, read in one round trip."""
        batch = Batch(self.r.pipeline(transaction=False))
        batch.add_read("last", lambda p: self.queue_last_inbound(p, address))
        self.clock.add_now_ms(batch)
        got = batch.run()
        return got["last"], got["now_ms"]

    def queue_last_inbound(self, pipe: Pipeline, address: str) -> Callable[[list[Any]], int | None]:
        """:meth:`last_inbound_ms` queued on ``pipe``; call the result with the replies of that read."""
        pipe.get(whatsapp_window(address))

        def finish(replies: list[Any]) -> int | None:
            raw = replies[0] if replies else None
            return int(text(raw)) if raw is not None else None

        return finish

    def content_sid(self, account: str, shape: str) -> str | None:
        """The ContentSid made for ``shape`` by ``account``, or None."""
        raw = self.r.hget(whatsapp_contents(account), shape)
        return text(raw) if raw is not None else None

    def keep_content_sid(self, account: str, shape: str, sid: str) -> str:
        """Keep ``sid`` for ``shape`` unless one is kept already (two workers made one at once); the one kept."""
        pipe = self.r.pipeline(transaction=False)
        pipe.hsetnx(whatsapp_contents(account), shape, sid)
        pipe.hget(whatsapp_contents(account), shape)
        return text(pipe.execute()[1])


def window_open(last_ms: int | None, now_ms: int) -> bool:
    """Whether free-form messages may go now to an address that last wrote at ``last_ms``."""
    return last_ms is not None and now_ms < last_ms + WINDOW_MS


def window_left_ms(last_ms: int | None, now_ms: int) -> int:
    """How long the window stays open from ``now_ms`` (0: closed)."""
    return max(0, last_ms + WINDOW_MS - now_ms) if last_ms is not None else 0
