"""The kernel's link to the resource service: a :class:`~maka_runtime.kernel.core.tools.ToolHost`.

It calls ``maka-resource`` through the Python SDK (:class:`maka_runtime_client.aio.ResourceClient`),
the way any client does. Every unary call carries a deadline (``call_timeout``, the kernel's
``--resource-timeout``); a foreground run's stream must report ``started`` within that deadline
too, and then carries the run's own timeout plus a margin. The channel pings the service every
half of ``call_timeout`` and drops the connection when a ping goes unanswered for the other half
(:func:`maka_runtime_client.keepalive.link_policy`), so a frozen service (stopped, hung, its host
gone) fails every call and stream within ``call_timeout``; a (re)connection is waited for at most
:data:`CONNECT_TIMEOUT`. The channel reconnects on its own
(backoff capped at two seconds), so after the resource service restarts the next tool call
goes through again. Transport failures, deadlines and a draining service become
:class:`ToolHostUnavailableError`; refusals keep the service's reason.

Sessions: :meth:`ensure_session` registers a session with the resource service once per
process (the registration is idempotent and free on the service side when nothing changed).
An archive the service could not be told about (it was down) is kept and sent with the next
successful call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal, cast

import grpc
from maka_runtime_client import errors
from maka_runtime_client.aio import ClientOptions, ResourceClient
from maka_runtime_client.credentials import TlsFiles
from maka_runtime_client.keepalive import link_policy
from maka_runtime_proto.resource.v1 import resource_pb2 as pb
from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

from maka_runtime.common.boundary import boundary_to_proto
from maka_runtime.kernel.core.session import SessionHeader
from maka_runtime.kernel.core.tool_output import RESULT_CHARS
from maka_runtime.kernel.core.tools import (
    HostShutdownReport,
    RunEnded,
    RunEvent,
    RunGap,
    RunInfo,
    RunOutput,
    RunSpec,
    RunStarted,
    RunStatusName,
    ToolHostError,
    ToolHostUnavailableError,
)

log = logging.getLogger("maka.kernel.resources")

#: A foreground run's stream deadline: its timeout plus this margin (seconds).
STREAM_MARGIN = 30.0
#: The resource service's foreground default, when a call sets no timeout (milliseconds).
DEFAULT_FOREGROUND_TIMEOUT_MS = 120_000
#: The longest a tool call waits for a (re)connection (seconds); the channel retries at least
#: every two seconds, so a restarted service is found within this time.
CONNECT_TIMEOUT = 5.0
#: StopRun waits for TERM, the service's grace period and KILL: allow this on top of the call
#: deadline (seconds).
STOP_MARGIN = 15.0


def _status(value: pb.RunStatus.ValueType) -> RunStatusName:
    name = pb.RunStatus.Name(value).removeprefix("RUN_STATUS_").lower()
    known = ("starting", "running", "completed", "failed", "timed_out", "cancelled", "orphaned")
    return cast(RunStatusName, name if name in known else "unknown")


def _boundary(spec: RunSpec) -> sb.ExecutionBoundary | None:
    """The run's boundary as the resource service reads it (``None``: its default)."""
    b = spec.boundary
    if b is None:
        return None
    return boundary_to_proto(b.profile, b.workspace_root, b.expansions, b.revision)


def run_info(run: pb.Run) -> RunInfo:
    """The core's view of a resource-service run; its output is bounded: the last
    :data:`~maka_runtime.kernel.core.tool_output.RESULT_CHARS` characters of each stream, and one
    more so that a result knows it was cut (the resource service keeps a megabyte of each;
    the kernel needs only what a result shows)."""
    output = ""
    if run.HasField("pipes"):
        output = run.pipes.stdout[-RESULT_CHARS - 1 :]
        if run.pipes.stderr:
            output = f"{output}{'' if not output or output.endswith(chr(10)) else chr(10)}"
            output += run.pipes.stderr[-RESULT_CHARS - 1 :]
    elif run.HasField("screen"):
        lines = [*run.screen.scrollback, *run.screen.lines]
        output = "\n".join(lines).rstrip()[-RESULT_CHARS - 1 :]
    return RunInfo(
        ref=run.ref,
        status=_status(run.status),
        pid=run.pid,
        exit_code=run.exit_code if run.HasField("exit_code") else None,
        signal=run.signal if run.HasField("signal") else None,
        message=run.message,
        output=output,
    )


def _run_event(response: pb.RunForegroundResponse) -> RunEvent | None:
    """The core's event of one response of a foreground run's stream."""
    kind = response.WhichOneof("event")
    if kind == "started":
        return RunStarted(run=run_info(response.started))
    if kind == "output":
        chunk = response.output
        stream: Literal["stdout", "stderr"] = (
            "stderr" if chunk.stream == pb.OUTPUT_STREAM_STDERR else "stdout"
        )
        return RunOutput(data=chunk.data, stream=stream)
    if kind == "gap":
        gap = response.gap
        return RunGap(stdout_bytes=gap.stdout_bytes + gap.pty_bytes, stderr_bytes=gap.stderr_bytes)
    if kind == "result":
        return RunEnded(run=run_info(response.result))
    return None


@dataclass(frozen=True)
class LinkCredential:
    """The link's credential: a token (``None``: ``MAKA_TOKEN``, then the local credential of
    *data_dir*) and TLS files (``None``: plaintext)."""

    token: str | None = None
    data_dir: str | None = None
    tls: TlsFiles | None = None


class ResourceLink:
    """A :class:`~maka_runtime.kernel.core.tools.ToolHost` backed by ``maka-resource``."""

    def __init__(
        self,
        address: str,
        *,
        call_timeout: float = 10.0,
        credential: LinkCredential | None = None,
        interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
    ) -> None:
        credential = credential or LinkCredential()
        self._address = address
        self.call_timeout = call_timeout
        #: How long a tool call waits for a connection to the service before it fails.
        self.connect_timeout = min(call_timeout, CONNECT_TIMEOUT)
        self.keepalive = link_policy(call_timeout)
        self._client = ResourceClient(
            address,
            options=ClientOptions(
                timeout=call_timeout,
                keepalive=self.keepalive,
                # Every ping the channel sends (not only keepalive ones: gRPC's bandwidth probes
                # too, which would otherwise hold the keepalive ping back for gRPC's own minute)
                # times out like a keepalive ping.
                channel_options=(("grpc.http2.ping_timeout_ms", self.keepalive.ping_timeout_ms),),
                client_name="maka-kernel",
                token=credential.token,
                data_dir=credential.data_dir,
                tls=credential.tls,
            ),
            interceptors=list(interceptors) or None,
        )
        self._registered: dict[str, tuple[str, str]] = {}
        self._pending_archives: dict[str, bool] = {}

    @property
    def address(self) -> str:
        return self._address

    async def close(self) -> None:
        await self._client.close()

    def _failure(self, error: errors.MakaError, doing: str) -> ToolHostError:
        if isinstance(error, errors.UnavailableError | errors.DrainingError):
            if isinstance(error, errors.DrainingError):
                what = "is shutting down"
            elif "ping timeout" in error.message.lower() or "keepalive" in error.message.lower():
                what = (
                    "stopped answering: a keepalive ping went unanswered for "
                    f"{self.keepalive.ping_timeout_ms / 1000:g} s"
                )
            else:
                what = "is unreachable or did not answer in time"
            return ToolHostUnavailableError(
                f"the resource service at {self._address} {what} ({doing}: {error.message})",
                reason=error.reason,
            )
        return ToolHostError(
            f"the resource service refused {doing}: {error.message}", reason=error.reason
        )

    async def _flush_archives(self) -> None:
        for session_id, deleted in list(self._pending_archives.items()):
            await self._client.archive_session(session_id, deleted=deleted)
            self._pending_archives.pop(session_id, None)
            log.info("told the resource service of the earlier archive of session %s", session_id)

    async def _connected(self) -> None:
        """Wait (up to the connect timeout) for a connection: a restarting service gets the
        time to come back, a missing one fails the call within that time."""
        if not await self._client.wait_ready(self.connect_timeout):
            raise ToolHostUnavailableError(
                f"the resource service at {self._address} is unreachable "
                f"(no connection within {self.connect_timeout:g} s)"
            )

    async def ensure_session(self, header: SessionHeader, *, wait: bool = True) -> None:
        if wait:
            await self._connected()
        try:
            if self._pending_archives:
                await self._flush_archives()
            if self._registered.get(header.id) == (header.cwd, header.owner):
                return
            await self._client.register_session(header.id, cwd=header.cwd, owner=header.owner)
        except errors.MakaError as error:
            raise self._failure(error, f"registering session {header.id}") from error
        self._registered[header.id] = (header.cwd, header.owner)

    async def archive_session(self, session_id: str, *, deleted: bool = False) -> list[RunInfo]:
        self._registered.pop(session_id, None)
        try:
            stopped = await self._client.archive_session(
                session_id, deleted=deleted, timeout=self.call_timeout + STOP_MARGIN
            )
        except errors.MakaError as error:
            failure = self._failure(error, f"archiving session {session_id}")
            if isinstance(failure, ToolHostUnavailableError):
                self._pending_archives[session_id] = deleted
            raise failure from error
        self._pending_archives.pop(session_id, None)
        return [run_info(run) for run in stopped]

    async def run_foreground(self, spec: RunSpec) -> AsyncIterator[RunEvent]:
        timeout_ms = spec.timeout_ms or DEFAULT_FOREGROUND_TIMEOUT_MS
        events = self._client.run_foreground(
            spec.session_id,
            spec.command,
            cwd=spec.cwd,
            timeout_ms=spec.timeout_ms,
            source_turn_id=spec.turn_id,
            source_tool_call_id=spec.tool_call_id,
            announce_start=True,
            boundary=_boundary(spec),
            timeout=timeout_ms / 1000 + STREAM_MARGIN,
        )
        try:
            first = await self._started(events, spec)
            if first is not None:
                yield first
                async for response in events:
                    event = _run_event(response)
                    if event is not None:
                        yield event
        except errors.MakaError as error:
            raise self._failure(error, f"running {spec.command!r}") from error
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    async def _started(
        self, events: AsyncIterator[pb.RunForegroundResponse], spec: RunSpec
    ) -> RunEvent | None:
        """The stream's first event (``started``), which must come within ``call_timeout``:
        a service that accepted the call but does not start the run fails it then."""
        try:
            async with asyncio.timeout(self.call_timeout):
                response = await anext(aiter(events), None)
        except TimeoutError:
            raise ToolHostUnavailableError(
                f"the resource service at {self._address} did not answer in time: "
                f"{spec.command!r} was not reported started within {self.call_timeout:g} s "
                "(--resource-timeout)"
            ) from None
        return None if response is None else _run_event(response)

    async def start_background(self, spec: RunSpec) -> RunInfo:
        try:
            run = await self._client.start_background(
                spec.session_id,
                spec.command,
                pty=spec.pty,
                size=spec.size,
                cwd=spec.cwd,
                timeout_ms=spec.timeout_ms,
                source_turn_id=spec.turn_id,
                source_tool_call_id=spec.tool_call_id,
                boundary=_boundary(spec),
            )
        except errors.MakaError as error:
            raise self._failure(error, f"starting {spec.command!r}") from error
        return run_info(run)

    async def stop_run(self, session_id: str, ref: str) -> RunInfo:
        try:
            run = await self._client.stop_run(
                session_id, ref, timeout=self.call_timeout + STOP_MARGIN
            )
        except errors.MakaError as error:
            raise self._failure(error, f"stopping {ref}") from error
        return run_info(run)

    async def shutdown(self) -> HostShutdownReport:
        try:
            response = await self._client.shutdown(timeout=self.call_timeout + STOP_MARGIN)
        except errors.MakaError as error:
            if error.code.name == "CANCELLED" or "Socket closed" in error.message:
                # The service stopped right after it answered: the shutdown happened.
                return HostShutdownReport(reached=True)
            return HostShutdownReport(reached=False, error=str(self._failure(error, "shutdown")))
        except Exception as error:  # the cascade must never stop the kernel's own shutdown
            return HostShutdownReport(reached=False, error=f"shutdown failed: {error!r}")
        return HostShutdownReport(
            reached=True,
            runs_ended=sum(count.count for count in response.ended),
            runs_unfinished=response.unfinished,
        )
