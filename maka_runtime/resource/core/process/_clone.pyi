def spawn(
    path: bytes,
    argv: list[bytes],
    env: list[bytes],
    cwd: bytes | None,
    stdio: tuple[int, int, int],
    cgroup: int,
    gated: bool = False,
    ignored: tuple[int, ...] = (),
    /,
) -> int: ...
