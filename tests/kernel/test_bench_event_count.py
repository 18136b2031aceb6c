"""The ghz bench counts a coalesced StartTurn response as the events it carries, so the
coalescing profile's events/s and its grpc.aio baseline (one frame per event) count the same
events (bench/ghz_fixtures.py)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

BENCH = Path(__file__).resolve().parents[2] / "bench"


def fixtures_module() -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("ghz_fixtures")
    finally:
        sys.path.remove(str(BENCH))


def delta(seq: int, text: str) -> pb.SessionEvent:
    return pb.SessionEvent(seq=seq, text_delta=pb.TextDelta(text=text))


def test_a_coalesced_response_counts_as_each_of_its_events() -> None:
    sizes = fixtures_module()._event_sizes
    events = [delta(seq, f"word{seq} ") for seq in range(1, 5)]
    coalesced = pb.StartTurnResponse(event=events[0], more_events=events[1:])
    alone = [pb.StartTurnResponse(event=event).ByteSize() for event in events]
    assert sizes(coalesced, pb.StartTurnResponse) == alone
    assert sizes(pb.StartTurnResponse(event=events[0]), pb.StartTurnResponse) == alone[:1]


def test_the_coalescing_profile_asks_for_coalescing_and_the_stream_profile_does_not() -> None:
    def data(name: str) -> dict[str, Any]:
        profile: dict[str, Any] = json.loads((BENCH / "ghz" / f"{name}.json").read_text())
        return dict(profile["data"])

    assert data("kernel_start_turn_coalesced")["coalesce_events"] is True
    assert "coalesce_events" not in data("kernel_start_turn_stream")
    assert data("kernel_start_turn_coalesced")["text"] == data("kernel_start_turn_stream")["text"]
