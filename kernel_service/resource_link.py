"""The kernel's link to the resource service: a :class:`~kernel_service.core.tools.ToolHost`.

It calls ``maka-resource`` through the Python SDK (:class:`maka_client.aio.ResourceClient`),
the way any client does. Every unary call carries a deadline (``call_timeout``); a foreground
run's stream carries the run's own timeout plus a margin. The channel reconnects on its own
(backoff capped at two seconds), so after the resource service restarts the next tool call
goes through again. Transport failures, deadlines and a draining service become
:class:`ToolHostUnavailableError`; refusals keep the service's reason.

Sessions: :meth:`ensure_session` registers a session with the resource service once per
process (the registration is idempotent and free on the service side when nothing changed).
An archive the service could not be told about (it was down) is kept and sent with the next
successful call.
"""

from __future__ import annotations

import codecs
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal, cast

import grpc
from maka.resource.v1 import resource_pb2 as pb
from maka_client import errors
from maka_client.aio import ClientOptions, ResourceClient
from maka_client.credentials import TlsFiles

from kernel_service.core.session import SessionHeader
from kernel_service.core.tools import (
    HostShutdownReport,
    RunEnded,
    RunEvent,
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


def run_info(run: pb.Run) -> RunInfo:
    """The core's view of a resource-service run."""
    output = ""
    if run.HasField("pipes"):
        output = run.pipes.stdout
        if run.pipes.stderr:
            output = f"{output}{'' if not output or output.endswith(chr(10)) else chr(10)}"
            output += run.pipes.stderr
    elif run.HasField("screen"):
        output = "\n".join([*run.screen.scrollback, *run.screen.lines]).rstrip()
    return RunInfo(
        ref=run.ref,
        status=_status(run.status),
        pid=run.pid,
        exit_code=run.exit_code if run.HasField("exit_code") else None,
        signal=run.signal if run.HasField("signal") else None,
        message=run.message,
        output=output,
    )


@dataclass(frozen=True)
class LinkCredential:
    """The link's credential: a token (``None``: ``MAKA_TOKEN``, then the local credential of
    *data_dir*) and TLS files (``None``: plaintext)."""

    token: str | None = None
    data_dir: str | None = None
    tls: TlsFiles | None = None


class ResourceLink:
    """A :class:`~kernel_service.core.tools.ToolHost` backed by ``maka-resource``."""

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
        self._client = ResourceClient(
            address,
            options=ClientOptions(
                timeout=call_timeout,
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
            what = (
                "is shutting down"
                if isinstance(error, errors.DrainingError)
                else "is unreachable or did not answer in time"
            )
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
        decoders = {
            stream: codecs.getincrementaldecoder("utf-8")(errors="replace")
            for stream in ("stdout", "stderr")
        }
        events = self._client.run_foreground(
            spec.session_id,
            spec.command,
            cwd=spec.cwd,
            timeout_ms=spec.timeout_ms,
            source_turn_id=spec.turn_id,
            source_tool_call_id=spec.tool_call_id,
            announce_start=True,
            timeout=timeout_ms / 1000 + STREAM_MARGIN,
        )
        try:
            async for response in events:
                kind = response.WhichOneof("event")
                if kind == "started":
                    yield RunStarted(run=run_info(response.started))
                elif kind == "output":
                    chunk = response.output
                    stream: Literal["stdout", "stderr"] = (
                        "stderr" if chunk.stream == pb.OUTPUT_STREAM_STDERR else "stdout"
                    )
                    text = decoders[stream].decode(chunk.data)
                    if text:
                        yield RunOutput(text=text, stream=stream)
                elif kind == "gap":
                    gap = response.gap
                    yield RunOutput(
                        text=f"\n[output {gap.first_sequence}..{gap.last_sequence} dropped]\n"
                    )
                elif kind == "result":
                    yield RunEnded(run=run_info(response.result))
        except errors.MakaError as error:
            raise self._failure(error, f"running {spec.command!r}") from error
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

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
