"""A session's workspace stays clear of the kernel's data directory (it holds the credentials).

A workspace that is the data directory, contains it (its parent, the home directory above
``~/.local/share/maka-runtime``) or lies inside it is refused at CreateSession, and UpdateSession
of a session stored before the rule takes no new ``cwd``: ``INVALID_ARGUMENT`` with ``field``
``workspace_root``, and nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.core.session import SessionHeader

from .conftest import Server, database, failure, reason


async def _refused(call: object, data_dir: Path, root: Path) -> None:
    error = await failure(call)
    code, why, metadata = reason(error)
    assert (code, why) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"), error.details()
    assert metadata.get("field") == "workspace_root", error.details()
    assert "data directory" in (error.details() or "")
    # The data directory is named, never its path (a token principal must not learn it).
    said = (error.details() or "").replace(os.path.normpath(root), "")  # noqa: ASYNC240
    assert str(data_dir.resolve()) not in said  # noqa: ASYNC240


async def test_a_workspace_overlapping_the_data_dir_is_refused(server: Server) -> None:
    stub = server.stub()
    data_dir = server.data_dir
    inside = data_dir / "credentials"
    inside.mkdir(parents=True, exist_ok=True)
    link = data_dir.parent / "alias-of-data"
    link.symlink_to(data_dir)
    before = await database(server)
    for root in (data_dir, data_dir.parent, inside, link, Path(f"{data_dir}/../{data_dir.name}")):
        await _refused(
            stub.CreateSession(pb.CreateSessionRequest(workspace_root=str(root))), data_dir, root
        )
    assert await database(server) == before
    # A sibling that merely shares a name prefix is fine.
    sibling = data_dir.parent / f"{data_dir.name}-work"
    sibling.mkdir()
    created = await stub.CreateSession(pb.CreateSessionRequest(workspace_root=str(sibling)))
    assert created.session.workspace_root == str(sibling)


async def test_a_stored_session_over_the_data_dir_takes_no_new_cwd(server: Server) -> None:
    stub = server.stub()
    data_dir = server.data_dir
    # A session stored before the rule: written to the store directly.
    header = SessionHeader(
        id="old",
        workspace_root=str(data_dir.parent),
        cwd=str(data_dir.parent),
        created_at=1,
        last_used_at=1,
    )
    await server.kernel._deps.store.create(header)
    update = pb.UpdateSessionRequest(session_id="old", cwd=str(data_dir))
    await _refused(stub.UpdateSession(update), data_dir, data_dir.parent)
    renamed = await stub.UpdateSession(pb.UpdateSessionRequest(session_id="old", name="kept"))
    assert renamed.session.name == "kept"


async def test_a_workspace_in_a_system_directory_is_refused(server: Server, tmp_path: Path) -> None:
    """A workspace is writable: ``/`` and the system directories (or a symlink to one) never
    are, whatever the permission mode."""
    stub = server.stub()
    link = tmp_path / "etc-link"
    link.symlink_to("/etc")
    before = await database(server)
    for root in ("/", "/etc", "/sys/fs/cgroup", "/proc/self", "/usr/lib", str(link)):
        request = pb.CreateSessionRequest(
            workspace_root=root, permission_mode=pb.PERMISSION_MODE_BYPASS
        )
        error = await failure(stub.CreateSession(request))
        code, why, metadata = reason(error)
        assert (code, why) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"), root
        assert metadata.get("field") == "workspace_root", error.details()
        assert "system directory" in (error.details() or ""), error.details()
    assert await database(server) == before
