"""What a call does once instead of every time: remembered tokens, parsed authorization
values, answers per caller, the log ids a request type can carry."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2
from maka_runtime_proto.resource.v1 import resource_pb2

from maka_runtime.common import auth
from maka_runtime.common.auth import (
    REMEMBERED_TOKENS,
    Authenticator,
    Gate,
    hash_token,
    new_token,
)
from maka_runtime.common.logs import id_fields_of
from maka_runtime.common.per_caller import PerCaller
from maka_runtime.common.principal import Principal, acting_as
from tests.support.counting import count_calls
from tests.support.servicer_context import RecordingContext


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every token the authenticator hashed."""
    return count_calls(monkeypatch, hashlib, "sha256")


def token_file(path: Path, **principals: str) -> Path:
    entries = [
        {"principal": name, "roles": ["client"], "sha256": hash_token(token)}
        for name, token in principals.items()
    ]
    path.write_text(json.dumps({"tokens": entries}))
    return path


def test_a_token_that_authenticated_is_not_hashed_again(
    tmp_path: Path, hashes: list[bytes]
) -> None:
    token = new_token()
    authenticator = Authenticator(tmp_path, token_file(tmp_path / "t.json", ci=token), local=False)
    authenticator.open()
    hashes.clear()
    for _ in range(3):
        found = authenticator.by_token(token)
        assert found is not None and found.id == "ci"
    assert len(hashes) == 1


def test_an_unknown_token_is_hashed_every_time(tmp_path: Path, hashes: list[bytes]) -> None:
    authenticator = Authenticator(tmp_path, token_file(tmp_path / "t.json"), local=False)
    authenticator.open()
    hashes.clear()
    wrong = new_token()
    assert authenticator.by_token(wrong) is None
    assert authenticator.by_token(wrong) is None
    assert len(hashes) == 2


def test_a_removed_token_is_refused_once_the_file_is_read_again(tmp_path: Path) -> None:
    kept, removed = new_token(), new_token()
    path = token_file(tmp_path / "t.json", kept=kept, removed=removed)
    authenticator = Authenticator(tmp_path, path, local=False)
    authenticator.open()
    assert authenticator.by_token(removed) is not None  # remembered now
    token_file(path, kept=kept)
    authenticator.reload()
    assert authenticator.by_token(removed) is None
    assert authenticator.by_token(kept) is not None


def test_a_new_local_credential_forgets_the_old_one(tmp_path: Path) -> None:
    authenticator = Authenticator(tmp_path, None)
    authenticator.open()
    path = authenticator.local_path
    assert path is not None
    old = path.read_text().strip()
    assert authenticator.by_token(old) is not None
    path.write_text(new_token() + "\n")
    authenticator.reload()
    assert authenticator.by_token(old) is None


def test_remembered_tokens_are_bounded(tmp_path: Path, hashes: list[bytes]) -> None:
    tokens = {f"p{index}": new_token() for index in range(REMEMBERED_TOKENS + 1)}
    authenticator = Authenticator(tmp_path, token_file(tmp_path / "t.json", **tokens), local=False)
    authenticator.open()
    for token in tokens.values():
        assert authenticator.by_token(token) is not None
    hashes.clear()
    # The memory was emptied when it was full: the first token is hashed again.
    assert authenticator.by_token(tokens["p0"]) is not None
    assert len(hashes) == 1


GET_RUN = "/maka.resource.v1.ResourceService/GetRun"
SHUTDOWN = "/maka.resource.v1.ResourceService/Shutdown"


def _caller(token: str) -> RecordingContext:
    return RecordingContext([("user-agent", "test"), ("authorization", f"Bearer {token}")])


def _code(found: Principal | grpc.Status | None) -> grpc.StatusCode | None:
    return found.code if isinstance(found, grpc.Status) else None


def test_an_admitted_authorization_is_parsed_once_per_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = new_token()
    authenticator = Authenticator(tmp_path, token_file(tmp_path / "t.json", ci=token), local=False)
    authenticator.open()
    parsed = count_calls(monkeypatch, auth, "_token_of")
    principal_of = Gate(authenticator, "test.maka").for_method(GET_RUN)
    for _ in range(3):
        found = principal_of(_caller(token))
        assert isinstance(found, Principal) and found.id == "ci"
    assert len(parsed) == 1
    wrong = new_token()
    for _ in range(2):  # a value that was refused is parsed (and refused) every time
        assert _code(principal_of(_caller(wrong))) == grpc.StatusCode.UNAUTHENTICATED
    assert len(parsed) == 3


def test_an_admitted_authorization_is_still_authenticated_and_authorized_every_call(
    tmp_path: Path,
) -> None:
    kept, removed = new_token(), new_token()
    path = token_file(tmp_path / "t.json", kept=kept, removed=removed)
    authenticator = Authenticator(tmp_path, path, local=False)
    authenticator.open()
    gate = Gate(authenticator, "test.maka")
    get_run, shutdown = gate.for_method(GET_RUN), gate.for_method(SHUTDOWN)
    assert isinstance(get_run(_caller(removed)), Principal)
    # The same value, admitted before, for a method its principal's roles do not allow.
    assert _code(shutdown(_caller(removed))) == grpc.StatusCode.PERMISSION_DENIED
    token_file(path, kept=kept)
    authenticator.reload()
    assert _code(get_run(_caller(removed))) == grpc.StatusCode.UNAUTHENTICATED
    assert isinstance(get_run(_caller(kept)), Principal)
    assert gate.for_method("/grpc.health.v1.Health/Check")(RecordingContext()) is None


ALICE = Principal("alice", frozenset({"client"}))
BOB = Principal("bob", frozenset({"client"}))


def test_an_answer_is_built_once_per_caller_and_state() -> None:
    built: list[tuple[str, bool]] = []

    def build(caller: Principal | None, draining: bool) -> tuple[str, bool]:
        built.append((caller.id if caller else "", draining))
        return built[-1]

    answers: PerCaller[bool, tuple[str, bool]] = PerCaller(build)
    with acting_as(ALICE):
        assert answers(False) == ("alice", False)
        assert answers(False) == ("alice", False)
        assert answers(True) == ("alice", True)
    with acting_as(BOB):
        assert answers(False) == ("bob", False)
    assert answers(False) == ("", False)
    assert built == [("alice", False), ("alice", True), ("bob", False), ("", False)]


def test_answers_per_caller_are_bounded() -> None:
    built: list[bool] = []

    def build(_: Principal | None, state: bool) -> bool:
        built.append(state)
        return state

    answers: PerCaller[bool, bool] = PerCaller(build, 1)
    answers(True)
    answers(False)
    answers(True)
    assert built == [True, False, True]


def test_a_request_type_carries_only_its_own_log_ids() -> None:
    assert id_fields_of(kernel_pb2.GetServerInfoRequest.DESCRIPTOR) == ()
    assert id_fields_of(kernel_pb2.GetSessionRequest.DESCRIPTOR) == (("session_id", "session_id"),)
    run_ids = dict(id_fields_of(resource_pb2.RunForegroundRequest.DESCRIPTOR))
    assert run_ids["session_id"] == "session_id" and run_ids.get("source_turn_id") == "turn_id"
    # Without a type, every id field is looked for.
    assert len(id_fields_of(None)) == 4


def test_a_flat_request_without_unknown_fields_is_not_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from maka_runtime.common import request_guard

    walks = count_calls(monkeypatch, request_guard, "_wrong_wire_type")
    decode = request_guard.guarded_deserializer(
        resource_pb2.GetRunRequest.FromString, request_guard.RequestLimits(), "test.maka"
    )
    raw = resource_pb2.GetRunRequest(session_id="s", ref="r").SerializeToString()
    assert decode(raw).ref == "r"
    assert walks == []
    newer = raw + b"\xf8\x3e\x01"  # field 999, a varint: a newer client's field, accepted
    assert decode(newer).ref == "r" and len(walks) == 1
    wrong = raw + b"\x10\x01"  # field 2 (ref, a string) sent as a varint: refused
    assert isinstance(decode(wrong), request_guard.Refused) and len(walks) == 2
