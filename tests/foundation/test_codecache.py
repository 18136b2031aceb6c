"""The cache of the code dataclasses generates (maka_runtime.common.codecache).

Each test runs fresh interpreters, as a service's starts are: the first compiles and saves, the
next reads the file. A class made from the cache behaves exactly as one made without it (the
digest of every generated method's behaviour is the same), both services' imports are served
from it whole, and a file that is malformed, of another interpreter, a symbolic link, writable
by others or owned by another user is never read.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

#: Dataclasses of every kind of generated method: frozen with slots and keyword-only fields,
#: defaults and factories, ``__post_init__`` and ``InitVar``, ordering, ``unsafe_hash``,
#: ``eq=False``, inheritance, a ``ClassVar``.
SHAPES = """
from __future__ import annotations
import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import ClassVar

@dataclass(frozen=True, kw_only=True, slots=True)
class Event:
    type: str = "event"
    turn_id: str
    items: tuple[str, ...] = ()
    seq: int = 0

@dataclass(order=True)
class Ordered:
    rank: int
    name: str = field(default="x", compare=False)
    tags: list[str] = field(default_factory=list)
    scale: InitVar[int] = 1
    KIND: ClassVar[str] = "ordered"

    def __post_init__(self, scale: int) -> None:
        self.rank *= scale

@dataclass(unsafe_hash=True)
class Hashed:
    a: int
    b: str = "b"

@dataclass(eq=False)
class Identity:
    value: object = None

@dataclass(frozen=True)
class Base:
    x: int

@dataclass(frozen=True)
class Derived(Base):
    y: int = 2
"""

DIGEST = """
import inspect, json
import shapes as m

def attempt(action):
    try:
        action()
    except Exception as error:
        return type(error).__name__
    return "ok"

e = m.Event(turn_id="t", items=("a",))
o1, o2 = m.Ordered(2, "a", scale=3), m.Ordered(3, "b")
h, d = m.Hashed(1), m.Derived(1)
digest = {
    "reprs": [repr(e), repr(o1), repr(h), repr(d), repr(m.Identity(5))],
    "eq": [e == m.Event(turn_id="t", items=("a",)), o1 == m.Ordered(6, "z"), h == m.Hashed(1),
           m.Identity() == m.Identity(), d == m.Derived(1, 2), d == m.Base(1)],
    "order": [o1 < o2, o2 <= o1, sorted([o2, o1]) == [o1, o2]],
    "hash": [hash(e) == hash(m.Event(turn_id="t", items=("a",))), hash(h) == hash((1, "b")),
             hash(d) == hash((1, 2))],
    "frozen": [attempt(lambda: setattr(e, "seq", 1)), attempt(lambda: delattr(d, "x"))],
    "positional": attempt(lambda: m.Event("x")),
    "signatures": [str(inspect.signature(c)) for c in
                   (m.Event, m.Ordered, m.Hashed, m.Identity, m.Derived)],
    "slots": getattr(m.Event, "__slots__", None),
    "match_args": [m.Ordered.__match_args__, m.Derived.__match_args__],
    "factory": m.Ordered(1).tags is not m.Ordered(1).tags,
}
"""


def run(cwd: Path, code: str, *, cache: bool = True, **env: str) -> dict[str, Any]:
    """Run *code* in a fresh interpreter whose bytecode (and dataclass code) goes to
    ``cwd/pycache``; it sets ``out``, printed as JSON, with the cache's stats and save."""
    head = "from maka_runtime.common import codecache\n" if cache else ""
    tail = (
        "saved = codecache.save()\n"
        "out.update(hits=codecache.stats().hits, misses=codecache.stats().misses, saved=saved)\n"
        if cache
        else ""
    )
    script = f"{head}out = {{}}\n{textwrap.dedent(code)}\n{tail}import json\nprint(json.dumps(out))"
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ.update(PYTHONPYCACHEPREFIX=str(cwd / "pycache"), PYTHONPATH=_path(cwd), **env)
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def _path(cwd: Path) -> str:
    return os.pathsep.join([str(cwd), *sys.path])


def cache_file(cwd: Path) -> Path:
    found = run(cwd, "out['path'] = codecache.path()")["path"]
    assert found is not None
    return Path(found)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "shapes.py").write_text(SHAPES)
    return tmp_path


DIGESTED = "import maka_runtime\n" + DIGEST + "out['digest'] = digest\n"


def test_a_class_from_the_cache_is_the_class_without_it(workdir: Path) -> None:
    first = run(workdir, DIGESTED)
    second = run(workdir, DIGESTED)
    plain = run(workdir, DIGEST + "out['digest'] = digest\n", cache=False)
    assert first["misses"] > 0 and first["saved"] is True
    assert second["misses"] == 0 and second["hits"] > 0 and second["saved"] is False
    assert first["digest"] == second["digest"] == plain["digest"]
    assert plain["digest"]["frozen"] == ["FrozenInstanceError", "FrozenInstanceError"]


def test_both_services_imports_are_served_from_the_file(tmp_path: Path) -> None:
    imports = "import maka_runtime.kernel.server, maka_runtime.resource.server\n"
    first = run(tmp_path, imports)
    second = run(tmp_path, imports)
    assert first["misses"] > 100 and first["saved"] is True
    assert second == {"hits": first["hits"] + first["misses"], "misses": 0, "saved": False}


def test_texts_another_process_saved_are_kept(workdir: Path) -> None:
    (workdir / "other.py").write_text(
        "from dataclasses import dataclass\n@dataclass\nclass Other:\n    z: bytes = b''\n"
    )
    run(workdir, "import other")
    run(workdir, "import shapes")  # reads the file with Other's texts, saves with its own
    both = run(workdir, "import other, shapes")
    assert both["misses"] == 0 and both["hits"] > 0


def test_the_file_is_bounded(workdir: Path) -> None:
    (workdir / "other.py").write_text(
        "from dataclasses import dataclass\n@dataclass\nclass Other:\n    z: bytes = b''\n"
    )
    run(workdir, "import shapes")
    run(workdir, "codecache.MAX_ENTRIES = 3\nimport other")  # over the bound: keeps its own
    assert run(workdir, "import other")["misses"] == 0
    assert run(workdir, "import shapes")["misses"] > 0


def test_no_file_is_written_where_bytecode_is_not(workdir: Path) -> None:
    done = run(workdir, "import shapes", PYTHONDONTWRITEBYTECODE="1")
    assert done["misses"] > 0 and done["saved"] is False
    assert not cache_file(workdir).exists()


def _damage_by_garbage(file: Path) -> None:
    file.write_bytes(b"\x00not marshal data\xff" * 10)


def _damage_by_another_interpreter(file: Path) -> None:
    (_, table) = marshal.loads(file.read_bytes())
    file.write_bytes(marshal.dumps(((1, b"\x00\x00\r\n", 0), table)))


def _damage_by_truncation(file: Path) -> None:
    file.write_bytes(file.read_bytes()[:100])


def _damage_by_group_write(file: Path) -> None:
    file.chmod(0o664)


def _damage_by_symlink(file: Path) -> None:
    target = file.with_name("elsewhere.bin")
    file.rename(target)
    file.symlink_to(target)


def _damage_by_owner(file: Path) -> str:
    """As root, give the file to another user; as anyone else (who cannot), let the next
    reader run as if it were another user: either way the file's owner is not the reader
    and not root."""
    if os.geteuid() == 0:
        os.chown(file, 12345, 12345)
        return ""
    return f"import os\nos.geteuid = lambda: {os.geteuid() + 1}\n"


@pytest.mark.parametrize(
    "damage",
    [
        _damage_by_garbage,
        _damage_by_another_interpreter,
        _damage_by_truncation,
        _damage_by_group_write,
        _damage_by_symlink,
        _damage_by_owner,
    ],
    ids=lambda damage: damage.__name__.removeprefix("_damage_by_"),
)
def test_a_file_that_is_not_safe_and_ours_is_not_read(workdir: Path, damage: Any) -> None:
    good = run(workdir, DIGESTED)
    as_reader = damage(cache_file(workdir)) or ""  # what the next reader runs first, if any
    again = run(workdir, as_reader + DIGESTED)
    assert again["misses"] > 0 and again["hits"] == good["hits"]
    assert again["digest"] == good["digest"]
    assert again["saved"] is True  # replaced by a whole file of its own
    assert run(workdir, DIGESTED)["misses"] == 0
