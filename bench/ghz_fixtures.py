"""What the profiles run against, created up front on the live pair, and the product's
message sizes (the baselines answer with the same).

:func:`create` makes a scripted session ``bench-main`` in a fresh workspace with a few turns
in its log and ten finished runs of ``true``, twenty more sessions to list, and a scripted
session ``ghz-<worker id>`` for every ghz worker of a profile with ``sessions_per_worker``.
:func:`capture` calls a profile's method once, from Python, with the profile's own
request, and measures the request and the responses; of a unary method it also keeps the
response's bytes exactly as the product sent them (the replay baseline answers with them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from ghz_profiles import Profile, resolve
from google.protobuf import json_format, message_factory
from maka_runtime_proto.kernel.v1 import kernel_pb2 as kpb
from maka_runtime_proto.kernel.v1 import kernel_pb2_grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as rpb
from maka_runtime_proto.resource.v1 import resource_pb2_grpc
from support import BenchError, Pair

MAIN = "bench-main"
#: Sessions made besides the others, so a page of ListSessions is full.
LISTED = 20
SERVICES = {"kernel": kpb.DESCRIPTOR, "resource": rpb.DESCRIPTOR}
SERVICE_NAMES = {"kernel": "KernelService", "resource": "ResourceService"}


async def scripted_session(kernel: Any, metadata: Any, session_id: str, workspace: str) -> None:
    await kernel.CreateSession(
        kpb.CreateSessionRequest(
            session_id=session_id, workspace_root=workspace, backend="scripted"
        ),
        metadata=metadata,
        timeout=60,
    )


async def create(pair: Pair, workspace: Path, profiles: list[Profile]) -> dict[str, Any]:
    metadata = pair.metadata
    async with (
        grpc.aio.insecure_channel(pair.kernel.address) as kchannel,
        grpc.aio.insecure_channel(pair.resource.address) as rchannel,
    ):
        kernel = kernel_pb2_grpc.KernelServiceStub(kchannel)
        resource = resource_pb2_grpc.ResourceServiceStub(rchannel)
        await scripted_session(kernel, metadata, MAIN, str(workspace))
        last_seq = 0
        for _ in range(4):
            async for response in kernel.StartTurn(
                kpb.StartTurnRequest(session_id=MAIN, text="/script words 5"),
                metadata=metadata,
                timeout=60,
            ):
                last_seq = max(last_seq, response.event.seq)
        refs = []
        for _ in range(10):
            async for event in resource.RunForeground(
                rpb.RunForegroundRequest(session_id=MAIN, command="true", cwd=str(workspace)),
                metadata=metadata,
                timeout=60,
            ):
                if event.WhichOneof("event") == "result":
                    if event.result.status != rpb.RUN_STATUS_COMPLETED:
                        raise BenchError(f"fixture run of `true` did not complete: {event}")
                    refs.append(event.result.ref)
        workers = {
            worker
            for profile in profiles
            if profile.bench.get("sessions_per_worker")
            for worker in profile.worker_ids()
        }
        for worker in sorted(workers):
            await scripted_session(kernel, metadata, f"ghz-{worker}", str(workspace))
        # ListSessions reads full pages.
        for index in range(LISTED):
            await scripted_session(kernel, metadata, f"bench-listed-{index}", str(workspace))
    return {
        "SESSION": MAIN,
        "SESSION_ENTRIES": last_seq,
        "RUN_REF": refs[-1],
        "WORKSPACE": str(workspace),
    }


def _method(profile: Profile) -> Any:
    service = SERVICES[profile.service].services_by_name[SERVICE_NAMES[profile.service]]
    return service.methods_by_name[profile.method]


def _event_sizes(response: Any, response_class: Any) -> list[int]:
    """The size of each event of *response* as a message of its own: a coalesced StartTurn
    response (``more_events``) counts as the events it carries, so a profile that asks for
    coalescing is measured in events and its baseline streams one frame per event."""
    more = getattr(response, "more_events", None)
    if not more:
        return [response.ByteSize()]
    return [response_class(event=event).ByteSize() for event in (response.event, *more)]


@dataclass(frozen=True)
class Captured:
    """One call of a profile's method on the live product."""

    #: ``/package.Service/Method``.
    path: str
    request_bytes: int
    #: The mean size of a response (an event of a coalesced one).
    response_bytes: int
    #: Responses per call (one for a unary method; a coalesced response counts as its events).
    frames: int
    #: A unary method's response, serialized as the product sent it; None for a stream.
    response: bytes | None


async def capture(profile: Profile, pair: Pair, fixtures: dict[str, Any]) -> Captured:
    """One call of *profile* as its first ghz worker would make it."""
    method = _method(profile)
    request_class = message_factory.GetMessageClass(method.input_type)
    response_class = message_factory.GetMessageClass(method.output_type)
    data = resolve(profile.config.get("data", {}), fixtures)
    text = json.dumps(data).replace("{{.WorkerID}}", profile.worker_ids()[0])
    request = json_format.Parse(text, request_class())
    server = pair.kernel if profile.service == "kernel" else pair.resource
    path = f"/{method.containing_service.full_name}/{method.name}"
    limit = int(resolve(profile.config.get("stream-call-count", 0), fixtures))
    sizes: list[int] = []
    raw: bytes | None = None
    async with grpc.aio.insecure_channel(server.address) as channel:
        if not method.server_streaming:
            call = channel.unary_unary(path, request_serializer=request_class.SerializeToString)
            raw = await call(request, metadata=pair.metadata, timeout=60)
            sizes.append(response_class.FromString(raw).ByteSize())
        else:
            stream = channel.unary_stream(
                path,
                request_serializer=request_class.SerializeToString,
                response_deserializer=response_class.FromString,
            )(request, metadata=pair.metadata, timeout=120)
            async for response in stream:
                sizes.extend(_event_sizes(response, response_class))
                if limit and len(sizes) >= limit:
                    stream.cancel()
                    break
    if not sizes:
        raise BenchError(f"{profile.name}: the product answered nothing")
    return Captured(path, request.ByteSize(), round(sum(sizes) / len(sizes)), len(sizes), raw)


async def message_sizes(
    profile: Profile, pair: Pair, fixtures: dict[str, Any]
) -> tuple[int, int, int]:
    """(request bytes, mean response bytes, responses per call) of one call of *profile*."""
    got = await capture(profile, pair, fixtures)
    return got.request_bytes, got.response_bytes, got.frames
