"""The messages of finished runs, built once (api/run_protos.py)."""

from __future__ import annotations

import dataclasses

from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.resource.api.convert import run_to_proto
from maka_runtime.resource.api.run_protos import RunProtos
from maka_runtime.resource.core import ShellRunRecord
from tests.support.run_records import finished_record


def _record(n: int, *, status: str = "completed", stdout: str = "") -> ShellRunRecord:
    return finished_record(
        f"{n:032x}", status=status, stdout=stdout, change_seq=n + 1, updated_at=2, exit_code=0
    )


def test_a_finished_record_is_built_once_and_answers_as_built() -> None:
    protos = RunProtos(1 << 20)
    record = _record(1, stdout="hello\n")
    first = protos.of(record)
    assert first == run_to_proto(record)
    assert protos.of(record) is first


def test_only_the_record_it_was_built_from_gets_the_message() -> None:
    protos = RunProtos(1 << 20)
    record = _record(1)
    built = protos.of(record)
    again = dataclasses.replace(record)  # equal, but read anew: not the record held
    assert protos.of(again) is not built
    assert protos.of(again) == built
    assert len(protos) == 1


def test_active_runs_are_always_built_anew_and_zero_keeps_none() -> None:
    protos = RunProtos(1 << 20)
    running = _record(1, status="running")
    assert protos.of(running) is not protos.of(running)
    off = RunProtos(0)
    finished = _record(2)
    assert off.of(finished) is not off.of(finished)
    assert len(protos) == len(off) == 0


def test_the_messages_kept_stay_within_their_bytes_least_recent_first_out() -> None:
    records = [_record(n) for n in range(5)]
    size = run_to_proto(records[0]).ByteSize()
    protos = RunProtos(4 * size)  # a message may take at most a quarter: four fit
    kept = [protos.of(record) for record in records[:4]]
    assert protos.of(records[0]) is kept[0]  # now the most recently used
    protos.of(records[4])  # the least recently used (records[1]) goes
    assert len(protos) == 4
    assert protos.of(records[1]) is not kept[1]
    big = _record(9, stdout="x" * (4 * size))
    assert protos.of(big) is not protos.of(big)  # above a quarter of the bound: not kept


def test_get_run_answers_a_finished_run_with_the_answer_it_kept_serialized() -> None:
    protos = RunProtos(1 << 20)
    record = _record(1, stdout="kept\n")
    answer = protos.answer(record)
    assert protos.answer(record) is answer
    assert pb.GetRunResponse.FromString(answer).run == run_to_proto(record)
    running = _record(2, status="running")
    assert protos.answer(running) is not protos.answer(running)


def test_a_record_read_anew_is_answered_from_itself_not_from_the_kept_bytes() -> None:
    protos = RunProtos(1 << 20)
    record = _record(1, stdout="first\n")
    kept = protos.answer(record)
    # The same ref, another record object (e.g. read back after the kept one was dropped):
    # its own answer, never the bytes kept for the other.
    changed = dataclasses.replace(record, exit_code=7, change_seq=9)
    answer = protos.answer(changed)
    assert answer != kept
    assert pb.GetRunResponse.FromString(answer).run == run_to_proto(changed)
    assert protos.answer(changed) is answer and len(protos) == 1
