"""A servicer context for driving an aio servicer method directly, without a socket.

grpcio-testing drives only synchronous servicers; ours are ``grpc.aio`` coroutines and async
generators, so the api-layer tests call them with this context instead. It records what a
real context would send: the status and ``google.rpc.Status`` details of an abort, and
trailing metadata. ``abort_with_status`` raises :class:`Aborted`, as a real context raises to
end the call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

import grpc
from google.rpc import error_details_pb2, status_pb2


class Aborted(Exception):
    """The servicer ended the call with a status (what a real context does by raising)."""

    def __init__(self, status: grpc.Status) -> None:
        super().__init__(f"{status.code}: {status.details}")
        self.status = status

    @property
    def code(self) -> grpc.StatusCode:
        code: grpc.StatusCode = self.status.code
        return code

    @property
    def details(self) -> str:
        return str(self.status.details)

    def error_info(self) -> error_details_pb2.ErrorInfo:
        """The ``ErrorInfo`` detail of the status (it must have one)."""
        for key, value in self.status.trailing_metadata or ():
            if key == "grpc-status-details-bin":
                status = status_pb2.Status.FromString(value)
                for detail in status.details:
                    if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                        info = error_details_pb2.ErrorInfo()
                        detail.Unpack(info)
                        return info
        raise AssertionError(f"no ErrorInfo in {self.status!r}")


class RecordingContext:
    """Enough of ``grpc.aio.ServicerContext`` for the servicers' conversion and error paths."""

    def __init__(self, metadata: Sequence[tuple[str, str]] = (), peer: str = "ipv4:127.0.0.1:1"):
        self._metadata = tuple(metadata)
        self._peer = peer
        self.trailing: tuple[tuple[str, Any], ...] = ()
        self.cancelled = False

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, Any]]) -> None:
        self.trailing = tuple(metadata)

    def cancelled_call(self) -> bool:
        return self.cancelled

    def done(self) -> bool:
        return False

    async def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise Aborted(status)

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> NoReturn:
        raise Aborted(_Status(code, details, tuple(trailing_metadata)))


class _Status(grpc.Status):
    def __init__(self, code: grpc.StatusCode, details: str, trailing: tuple[Any, ...]) -> None:
        self.code = code
        self.details = details
        self.trailing_metadata = trailing
