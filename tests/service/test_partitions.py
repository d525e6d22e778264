"""A network between the service and its Redis Cluster (:mod:`tests.netns`): the nodes, the web and the worker each in
a network namespace of their own; a move the webhook answered 200 is applied once, whatever the network did.

* A master cut off from its replica and from the other masters, with the web and the worker on its side: it takes
  writes until ``cluster-node-timeout`` (or ``min-replicas-max-lag``) passes, while the majority promotes its replica;
  once the partition heals it is a replica and what it took alone is gone. The move answered 200 meanwhile must
  not be among it (the webhook spools a record no replica acknowledged: ``service.store.replica``).
* 500 ms of delay on the path to a master (its clients and its replica): the move answered meanwhile is applied
  once (spooled, handed over again, and handled once).

Skipped, with the reason, where network namespaces cannot be made (not root)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from service.conversation_port import command_text
from service.lifecycle.invitations import create_game
from service.store.base import log_digest
from tests import netns
from tests.waiting import wait_for

from .chooser import choose
from .test_sms_game import load_game

WAIT_MS = 300
NODE_TIMEOUT_MS = 1000
pytestmark = [pytest.mark.xdist_group("partitions"), pytest.mark.cluster, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[netns.Stack]:
    why = netns.available()
    if why is not None:
        pytest.skip(f"no network namespaces here: {why}")
    s = netns.Stack(Path(tmp_path_factory.mktemp("partitions")), node_timeout_ms=NODE_TIMEOUT_MS,
                    REPLICA_WAIT_MS=WAIT_MS)
    yield s
    s.stop()


def _wait(what: str, pred: Any, timeout: float = 30.0) -> Any:
    return wait_for(what, pred, timeout, 0.05, ignore=(Exception,))  # during a failover a read may fail: ask again


def _applied(svc: Any, gid: str) -> Counter[str]:
    return Counter(log_digest(e.message_id) for e in svc.store.load(gid) if e.message_id)


def _game(stack: netns.Stack, gid: str, players: tuple[str, str]) -> None:
    _wait("the game created",
          lambda: create_game(stack.svc.config, stack.svc.store, stack.svc.players, stack.svc.links, stack.svc.reach,
                              stack.svc.games, stack.svc.dealer, gid, players[0], players[1], "setup:" + gid) or True)
    _wait("the game dealt", lambda: load_game(stack.svc, gid).version > 0)


def _move(stack: netns.Stack, session: requests.Session, gid: str, players: tuple[str, str]) -> tuple[str, int]:
    """The next move of the game, answered 200; (its message id, the game's version before it)."""
    game = load_game(stack.svc, gid)
    seat = game.movers[0]
    code, mid = stack.post_sms(session, players[seat], command_text(choose(game, seat)))
    assert code == 200, code
    return mid, game.version


def _applied_once(stack: netns.Stack, gid: str, mid: str, version: int, timeout: float = 30) -> None:
    _wait(f"{mid} applied", lambda: load_game(stack.svc, gid).version > version, timeout)
    assert _applied(stack.svc, gid)[log_digest(mid)] == 1


def test_a_master_cut_off_with_the_web_and_worker_loses_no_move_answered_200(stack: netns.Stack) -> None:
    assert stack.cluster is not None
    session = requests.Session()
    gid, players = "part7", ("+15556610001", "+15556610002")
    _game(stack, gid, players)
    _applied_once(stack, gid, *_move(stack, session, gid, players))  # moves flow
    master = stack.cluster.master_of("{g:" + gid + "}:ev")
    replica = stack.cluster.replica_of(master)
    stack.net.cut([master.host, stack.app])  # the master, the web and the worker alone
    mid, version = _move(stack, session, gid, players)  # answered 200 on the minority side
    _wait("the replica promoted by the majority", lambda: stack.cluster and
          stack.cluster.role(replica)["role"] == "master", 15)
    stack.net.heal()
    stack.cluster.wait_ok(30)
    assert stack.cluster.role(master)["role"] == "slave"  # what it took alone is gone
    _applied_once(stack, gid, mid, version)
    _applied_once(stack, gid, *_move(stack, session, gid, players))  # and moves flow again
    _wait("the spool handed over", lambda: stack.spooled() == 0, 10)


def test_a_move_answered_during_500_ms_of_delay_is_applied_once(stack: netns.Stack) -> None:
    assert stack.cluster is not None
    session = requests.Session()
    gid, players = "part2", ("+15556620001", "+15556620002")
    _game(stack, gid, players)
    _applied_once(stack, gid, *_move(stack, session, gid, players))
    master = stack.cluster.master_of("{g:" + gid + "}:ev")
    master.shape(delay_ms=500)  # to the master and back: its clients, and its replica's link
    try:
        mid, version = _move(stack, session, gid, players)
        time.sleep(2.0)
    finally:
        master.shape()
    _applied_once(stack, gid, mid, version)
    _applied_once(stack, gid, *_move(stack, session, gid, players))
    _wait("the spool handed over", lambda: stack.spooled() == 0, 10)
    assert _applied(stack.svc, gid)[log_digest(mid)] == 1
