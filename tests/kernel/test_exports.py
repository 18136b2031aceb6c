"""The core's public surface is pinned, and the layering rule holds: the core never imports
gRPC or generated code."""

from __future__ import annotations

import ast
from pathlib import Path

from maka_runtime.kernel import core

EXPECTED = {
    "AgentBackend", "AnsweringAuthority", "BackendRegistry", "BackendSendInput",
    "BackendUnavailableError", "DrainReport", "DrainedTurn", "HostDrainingError",
    "HostedInteractionAuthority", "HostedMessageAuthority", "InteractionAlreadyResolvedError",
    "InteractionAuthority", "InteractionOwner", "InteractionRecord", "InteractionResponder",
    "InteractionStore", "InvalidRequestError", "KernelError", "KernelLimits", "MessageAuthority",
    "MessageOwner", "NewSession", "NotFoundError", "OperationConflictError",
    "PersistenceFailedError", "QueuedMessage", "Resolution", "RunIdentity",
    "RuntimeInteractionFailStopError", "RuntimeInteractionInvariantError", "RuntimeKernel",
    "RunEndUnconfirmedError",
    "RunUnconfirmedQuarantineError", "RuntimeOwnerCleanupError", "SandboxBoundaryResponse",
    "SessionArchivedError",
    "SessionBusyError", "SessionHeader", "SessionPage", "SessionPermanentlyQuarantinedError",
    "SessionQuarantinedError", "SessionQuery", "SessionStore", "SessionUpdate", "SessionWatch",
    "StopMode", "StopOutcome", "StopReason", "StoreClosedError", "SweepReport", "TurnInbox",
    "TurnNotStartedError", "TurnRecord", "TurnStream", "UserQuestionResponse",
    "combine_failures", "contains_failure",
    "AlreadyExistsError", "MessageQueueFullError", "OutOfRangeError", "owner_of",
}  # fmt: skip


def test_the_public_names_are_pinned() -> None:
    assert set(core.__all__) == EXPECTED
    for name in core.__all__:
        assert getattr(core, name) is not None


def test_the_core_imports_neither_grpc_nor_generated_code() -> None:
    for path in Path(core.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                # maka_runtime.common.aio (tasks, races), .sizes and .principal (who is calling) are
                # pure Python, shared by both cores.
                pure = (
                    "maka_runtime.common.aio",
                    "maka_runtime.common.sizes",
                    "maka_runtime.common.principal",
                )
                forbidden = ("grpc", "maka_runtime_proto", "google", "maka_runtime.common")
                assert name in pure or not any(
                    name == package or name.startswith(f"{package}.") for package in forbidden
                ), f"{path.name} imports {name}"
