"""A persistent cache of the code :mod:`dataclasses` generates for each class.

Every ``@dataclass`` compiles the source of its ``__init__``, ``__repr__``, ``__eq__`` … when
its module is imported. On CPython 3.11 that compile is about 0.7 ms of a class's 0.9 ms, and
each service defines some 70 dataclasses on its way to SERVING: a quarter of a cold start.
The text dataclasses compiles depends only on the class's shape, so its code object can be
kept the way a module's bytecode is: :func:`install` (called by ``maka_runtime/__init__``)
routes the compile of that text through a table read from one file beside this package's
bytecode (its ``__pycache__``, or under ``PYTHONPYCACHEPREFIX``), and :func:`save` (called by
each service before its event loop starts) writes the texts compiled anew into it, unless
bytecode writing is off (``PYTHONDONTWRITEBYTECODE``, ``-B``).

Only the compile is skipped. The cached code object is what ``compile`` returns for the same
text with the same file name, flags and optimization level, and each class still executes it
with its own globals and locals, so a class is the same with the cache or without it. A file of
another interpreter (magic number, cache tag, ``-O``), a malformed or unreadable one, a symbolic
link, or one that anybody but its owner (the current user or root) may write, is not read: the
texts are compiled as if there were no file. The file is written whole (a new file renamed over
the old) and bounded (:data:`MAX_ENTRIES`).
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import stat
import sys
from types import CodeType
from typing import Any, Final, NamedTuple

__all__ = ["MAX_ENTRIES", "Stats", "install", "path", "save", "stats"]

#: The most texts the file keeps; beyond it, a save keeps those this process used.
MAX_ENTRIES: Final = 4096
_FORMAT: Final = 1
#: The file name ``exec`` gives the code it compiles from a text.
_SOURCE_NAME: Final = "<string>"


class Stats(NamedTuple):
    """What this process's cache did: texts found in the file, and texts compiled (a named
    tuple: this module's own classes are made before the cache is installed)."""

    path: str | None
    hits: int
    misses: int


def _default_path() -> str | None:
    # A name that no module can have, so no import ever looks for it.
    anchor = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dataclass-code.py")
    try:
        compiled = importlib.util.cache_from_source(anchor)
    except NotImplementedError:  # an interpreter without a bytecode cache tag
        return None
    return compiled.removesuffix(".pyc") + ".bin"


def _header() -> tuple[int, bytes, int]:
    return (_FORMAT, importlib.util.MAGIC_NUMBER, sys.flags.optimize)


def _read(file: str) -> dict[str, CodeType]:
    """The table in *file*, or an empty one if it is missing, unsafe or not ours."""
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        writable_by_others = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if not stat.S_ISREG(info.st_mode) or writable_by_others:
            return {}
        if info.st_uid not in (0, os.geteuid()):
            return {}
        with os.fdopen(os.dup(fd), "rb") as stream:
            data = stream.read()
    except OSError:
        return {}
    finally:
        os.close(fd)
    try:
        loaded = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return {}
    return _valid(loaded)


def _valid(loaded: object) -> dict[str, CodeType]:
    if not isinstance(loaded, tuple) or len(loaded) != 2 or loaded[0] != _header():
        return {}
    table = loaded[1]
    if not isinstance(table, dict):
        return {}
    if not all(isinstance(k, str) and isinstance(v, CodeType) for k, v in table.items()):
        return {}
    return table


class _Cache:
    def __init__(self, file: str | None) -> None:
        self.file = file
        self._table: dict[str, CodeType] | None = None
        self.used: set[str] = set()
        self.new = 0
        self.hits = 0
        self.misses = 0

    @property
    def table(self) -> dict[str, CodeType]:
        if self._table is None:  # read at the first class, not at import
            self._table = _read(self.file) if self.file is not None else {}
        return self._table

    def code(self, text: str) -> CodeType:
        table = self.table
        code = table.get(text)
        if code is None:
            code = compile(text, _SOURCE_NAME, "exec", dont_inherit=True)
            table[text] = code
            self.misses += 1
            self.new += 1
        else:
            self.hits += 1
        self.used.add(text)
        return code


_cache = _Cache(_default_path())


def _exec(source: Any, globals: Any = None, locals: Any = None, /, **kwargs: Any) -> None:
    """``exec`` as dataclasses calls it, with a text's compile looked up first."""
    if globals is None:  # as exec itself does: the calling frame's namespaces
        frame = sys._getframe(1)
        globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
    if isinstance(source, str):
        source = _cache.code(source)
    builtins.exec(source, globals, locals, **kwargs)


def install() -> None:
    """Route the compiles of :mod:`dataclasses` through the cache (idempotent)."""
    # dataclasses looks ``exec`` up among its module's globals before the builtins.
    dataclasses.exec = _exec  # type: ignore[attr-defined]


def save() -> bool:
    """Write the texts compiled since the file was read; whether the file was written."""
    file = _cache.file
    if file is None or not _cache.new or sys.dont_write_bytecode:
        return False
    table = {**_read(file), **_cache.table}  # what another process saved meanwhile, too
    if len(table) > MAX_ENTRIES:
        table = {text: table[text] for text in _cache.used}
    data = marshal.dumps((_header(), table))
    temporary = f"{file}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(file), exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(temporary, file)
    except OSError:  # a read-only installation: every start compiles, as without the cache
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return False
    _cache.new = 0
    return True


def path() -> str | None:
    """The cache file of this interpreter (None: it has no bytecode cache tag)."""
    return _cache.file


def stats() -> Stats:
    return Stats(_cache.file, _cache.hits, _cache.misses)
