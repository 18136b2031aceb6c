def spawn(
    path: bytes,
    argv: list[bytes],
    env: list[bytes],
    cwd: bytes | None,
    stdio: tuple[int, int, int],
    cgroup: int,
    /,
) -> int: ...
