"""The lifecycle's records (a mixin of :class:`service.store.Store`): the life fields of a game (its turn, its
pauses, its page marks: fields of its meta, :func:`~service.store.keys.game_life`) and of a player (settings, STOP,
the game last prompted, a pending RESIGN: fields of their record, :func:`~service.store.keys.player_life`), and a
player's game numbers (also in their record).

Every write takes an optional pipeline: given, the write is queued on it (its creator executes it); else it
is written at once.
"""

from __future__ import annotations

from typing import Any, Mapping

from redis.client import Pipeline
from redis.commands.core import Script

from ..records import GameMeta, PlayerRecord
from .base import Client
from .codec import text, text_hash
from .keys import (
    game_life,
    is_life_field,
    is_number_field,
    number_field,
    owner_keys,
    player_life,
    player_nums,
    player_owner,
)

# The per-seat form of a turn (RULES D11: both players may owe a move): ``seat`` holds the digits of the
# seats owing one ("0", "1", "01"); ``v<seat>`` / ``since<seat>``: when the move that seat owes began. A
# seat that owed a move before and still does, and did not make this one (``actor``), keeps its own.
SEAT_TURNS_LUA = r"""
-- The turn's fields to write to a game's meta (its life fields), in one HSET: ``was`` is HMGET meta v seat since v0 v1;
-- the turn is recorded unless a newer one is. Returns the fields (empty if not newer) and the turn before
-- (version, -1 for none; seat(s)).
local function turn_fields(was, version, movers, since, actor)
  local old_v = tonumber(was[1] or '-1')
  local old_seat = was[2] or ''
  if old_v >= tonumber(version) then return {}, old_v, old_seat end
  local old_since = was[3] or since
  local fields = {'v', version, 'seat', movers, 'since', since}
  local function seat_turn(c, v, at)
    fields[#fields + 1] = 'v' .. c; fields[#fields + 1] = v
    fields[#fields + 1] = 'since' .. c; fields[#fields + 1] = at
  end
  for s = 0, 1 do
    local c = tostring(s)
    if string.find(movers, c, 1, true) then
      local still_owed = old_v >= 0 and string.find(old_seat, c, 1, true) and actor ~= '' and actor ~= c
      if not still_owed then
        seat_turn(c, version, since)
      elseif not was[4 + s] then
        seat_turn(c, tostring(old_v), old_since)
      end
    end
  end
  return fields, old_v, old_seat
end
"""

TURN_LUA = SEAT_TURNS_LUA + r"""
-- KEYS: life; ARGV: version, seat(s), since ms, actor seat or ''. Records the turn unless a newer one is.
local was = redis.call('HMGET', KEYS[1], 'v', 'seat', 'since', 'v0', 'v1')
local fields, v, old = turn_fields(was, ARGV[1], ARGV[2], ARGV[3], ARGV[4] or '')
if #fields == 0 then return {0, tostring(v), old} end
redis.call('HSET', KEYS[1], unpack(fields))
return {1, tostring(v), old}
"""


def _mapping(fields: Mapping[str, str]) -> dict[Any, Any]:
    """``fields`` as redis-py's ``hset(mapping=)`` is typed to take."""
    return dict(fields)

class LifeRecords:
    """Reads and writes of the life fields and game numbers."""

    r: Client
    SCRIPTS = {"_turn": TURN_LUA}
    _turn: Script

    # -- a player's life --------------------------------------------------------------------------------
    def player_life(self, address: str) -> PlayerRecord:
        """The player's life fields (those of their record, :func:`service.store.keys.is_life_field`)."""
        return PlayerRecord(address, {k: v for k, v in text_hash(self.r.hgetall(player_life(address))).items()
                                      if is_life_field(k)})

    def player_life_field(self, address: str, name: str) -> str | None:
        raw = self.r.hget(player_life(address), name)
        return None if raw is None else text(raw)

    def set_player_life(self, address: str, fields: Mapping[str, str], pipe: Pipeline | None = None) -> None:
        (self.r if pipe is None else pipe).hset(player_life(address), mapping=_mapping(fields))

    def del_player_life(self, address: str, *names: str) -> None:
        self.r.hdel(player_life(address), *names)

    def queue_stopped(self, pipe: Pipeline, address: str) -> None:
        """Queue the read of whether the player sent STOP (a reply ``1``)."""
        pipe.hget(player_life(address), "stopped")


    def queue_stopped_many(self, pipe: Pipeline, addresses: list[str]) -> None:
        """:meth:`queue_stopped` of each of ``addresses``, in order."""
        for address in addresses:
            self.queue_stopped(pipe, address)
    @staticmethod
    def number_in(nums: Mapping[str, str], game_id: str) -> str | None:
        """The number of ``game_id`` among a player's game numbers (their record's fields), or None."""
        return nums.get(number_field(game_id))

    def queue_player(self, pipe: Pipeline, address: str) -> None:
        """Queue the one read of a player: their record, which holds their life fields and game numbers too
        (:func:`service.store.keys.player_life`)."""
        pipe.hgetall(owner_keys(player_owner(address))["meta"])

    # -- a game's life -------------------------------------------------------------------------------------
    def game_life(self, game_id: str) -> GameMeta:
        """The game's meta, which holds its life fields (:func:`service.store.keys.game_life`)."""
        return GameMeta(text_hash(self.r.hgetall(game_life(game_id))))

    def game_life_field(self, game_id: str, name: str) -> str | None:
        raw = self.r.hget(game_life(game_id), name)
        return None if raw is None else text(raw)

    def set_game_life(self, game_id: str, fields: Mapping[str, str]) -> None:
        self.r.hset(game_life(game_id), mapping=_mapping(fields))

    def add_game_life(self, game_id: str, name: str, value: str) -> None:
        """Set a field of the game's life hash unless it is set (a pause recorded once per message)."""
        self.r.hsetnx(game_life(game_id), name, value)

    def record_turn(self, game_id: str, version: int, seat: str, since_ms: int,
                    actor: int | None = None) -> tuple[int, str, str]:
        """Record the game's turn unless a newer one is: (1 if recorded, the turn before: version, seat).
        ``seat``: the seats owing a move ("0", "1", "01"); ``actor``: the seat whose move made it, if known."""
        fresh, old_v, old_seat = self._turn(keys=[game_life(game_id)],
                                            args=[version, seat, since_ms, "" if actor is None else str(actor)])
        return int(fresh), text(old_v), text(old_seat)

    # -- game numbers ----------------------------------------------------------------------------------------
    def numbers(self, address: str) -> dict[str, str]:
        """``<n>`` -> game id and ``g:<game id>`` -> n, of the player (those fields of their record)."""
        return {k: v for k, v in text_hash(self.r.hgetall(player_nums(address))).items() if is_number_field(k)}

    def number_of_game(self, address: str, game_id: str) -> int | None:
        raw = self.r.hget(player_nums(address), number_field(game_id))
        return None if raw is None else int(raw)

    def game_of_number(self, address: str, n: int) -> str | None:
        raw = self.r.hget(player_nums(address), str(n))
        return None if raw is None else text(raw)

    def set_number(self, address: str, n: int, game_id: str) -> None:
        self.r.hset(player_nums(address), mapping={str(n): game_id, number_field(game_id): str(n)})
