"""GetSession's answer is built once per header object (maka_runtime.kernel.api.session_protos)."""

from __future__ import annotations

import dataclasses

import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.api import convert
from maka_runtime.kernel.api.session_protos import SessionProtos
from maka_runtime.kernel.core import SessionHeader
from tests.support.counting import count_calls


def header(session_id: str = "s", name: str = "first") -> SessionHeader:
    return SessionHeader(
        id=session_id, workspace_root="/", cwd="/", created_at=1, last_used_at=1, name=name
    )


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[SessionHeader]:
    """The headers converted to a message, in order."""
    return count_calls(monkeypatch, convert, "session_to_proto")


def name_in(answer: bytes) -> str:
    return pb.GetSessionResponse.FromString(answer).session.name


def ids(headers: list[SessionHeader]) -> list[str]:
    return [value.id for value in headers]


def test_the_same_header_object_is_answered_without_converting_again(
    builds: list[SessionHeader],
) -> None:
    protos = SessionProtos(8)
    first = header()
    answer = protos.of(first)
    assert protos.of(first) is answer
    session = pb.GetSessionResponse.FromString(answer).session
    assert session.id == "s" and session.name == "first"
    assert protos.session_of(first) == session
    assert ids(builds) == ["s"]


def test_a_changed_header_gets_its_own_answer(builds: list[SessionHeader]) -> None:
    protos = SessionProtos(8)
    old = header()
    protos.of(old)
    renamed = dataclasses.replace(old, name="second")
    assert name_in(protos.of(renamed)) == "second"
    assert protos.session_of(renamed).name == "second"
    # An equal header that is another object is converted again, never assumed equal.
    assert name_in(protos.of(dataclasses.replace(renamed))) == "second"
    assert ids(builds) == ["s", "s", "s"]


def test_the_oldest_is_forgotten_beyond_the_limit(builds: list[SessionHeader]) -> None:
    protos = SessionProtos(2)
    a, b, c = header("a"), header("b"), header("c")
    for value in (a, b, c):
        protos.of(value)
    protos.of(c)
    protos.of(b)
    protos.of(a)  # forgotten when c came: converted again
    assert ids(builds) == ["a", "b", "c", "a"]


def test_a_limit_of_zero_keeps_nothing(builds: list[SessionHeader]) -> None:
    protos = SessionProtos(0)
    value = header()
    protos.of(value)
    protos.of(value)
    assert ids(builds) == ["s", "s"]
