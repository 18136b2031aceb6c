"""The kernel's ids: 128 random bits each, read from the OS in batches, never repeated in a
forked child."""

from __future__ import annotations

import os
import re

import pytest

from maka_runtime.kernel.core import deps
from tests.support.counting import count_calls


def test_ids_are_unique_hex_and_read_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = count_calls(monkeypatch, os, "urandom")
    new_id = deps._RandomIds()
    ids = [new_id() for _ in range(3 * deps._RandomIds.BATCH)]
    assert all(re.fullmatch(r"[0-9a-f]{32}", value) for value in ids)
    assert len(set(ids)) == len(ids)
    assert reads == [16 * deps._RandomIds.BATCH] * 3


def test_a_forked_child_does_not_hand_out_its_parents_next_ids() -> None:
    new_id = deps._RandomIds()
    new_id()  # a batch is held now
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        os.write(write, new_id().encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(child, 0)
    childs = os.read(read, 64).decode()
    os.close(read)
    assert os.waitstatus_to_exitcode(status) == 0
    parents = [new_id() for _ in range(deps._RandomIds.BATCH)]
    assert re.fullmatch(r"[0-9a-f]{32}", childs) and childs not in parents
