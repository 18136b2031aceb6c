"""The README's first turn with the ``maka`` command line, against the pair in kernel mode."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pexpect

from maka_runtime.common.auth import hash_token, new_token
from tests.integration.conftest import Pair, start_pair
from tests.support import auth

MAKA = [sys.executable, "-m", "maka_runtime_client.cli"]
REF_PREFIX = "maka://runtime/background-tasks/"


def maka(
    pair: Pair, *args: str, home: Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    env.update(auth.ENV)  # the suite's credential (tests.support.auth)
    env["HOME"] = str(home)
    return subprocess.run(
        [*MAKA, "--kernel", pair.kernel.address, "--resource", pair.proxy.address, *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )


def test_first_turn_from_the_command_line(pair: Pair, workspace: Path, tmp_path: Path) -> None:
    created = maka(pair, "new", str(workspace), home=tmp_path)
    assert created.returncode == 0, created.stderr
    session = created.stdout.strip()
    turn = maka(pair, "turn", session, "echo hello; ls", "--approve", "once", home=tmp_path)
    assert turn.returncode == 0, turn.stderr
    assert "hello" in turn.stdout and "exit 0" in turn.stdout
    assert "approval needed to run 'echo hello; ls'" in turn.stdout


def test_runs_without_a_session_use_a_default_session_the_kernel_knows(
    pair: Pair, workspace: Path, tmp_path: Path
) -> None:
    # The home directory holds the kernel's data directory (as ~/.local/share/maka-runtime is
    # in ~), so the default session takes the current directory as its workspace.
    assert pair.kernel_dir.is_relative_to(tmp_path)
    run = maka(pair, "run", "--", "sh", "-c", "echo hi; exit 3", home=tmp_path, cwd=workspace)
    assert (run.returncode, run.stdout) == (3, "hi\n"), run.stderr
    shown = maka(pair, "--json", "show", "default-suite", home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["session"]["workspace_root"] == str(workspace)
    listed = maka(pair, "ps", home=tmp_path)
    assert "echo hi" in listed.stdout


def env_for(pair: Pair, home: Path) -> dict[str, str]:
    """The environment of a person who set the addresses once (so a printed command runs as
    printed)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    env.update(auth.ENV)  # the suite's credential (tests.support.auth)
    env.update(
        HOME=str(home),
        MAKA_KERNEL_ADDRESS=pair.kernel.address,
        MAKA_RESOURCE_ADDRESS=pair.proxy.address,
    )
    return env


def run_as_typed(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MAKA, *argv], check=False, capture_output=True, text=True, timeout=60, env=env
    )


def test_the_attach_command_a_turn_prints_works_as_printed(
    pair: Pair, workspace: Path, tmp_path: Path
) -> None:
    session = maka(pair, "new", "--name", "refs-demo", str(workspace), home=tmp_path)
    assert session.returncode == 0, session.stderr
    turn = maka(pair, "turn", "refs-demo", "/bg cat", "--approve", "once", home=tmp_path)
    assert turn.returncode == 0, turn.stderr
    printed = re.search(r"attach with: (maka attach \S+)$", turn.stdout, re.MULTILINE)
    assert printed, turn.stdout
    words = shlex.split(printed.group(1))
    ref = words[-1]
    env = env_for(pair, tmp_path)

    # As printed: no --session, though the run is not in the default session.
    child = pexpect.spawn(
        sys.executable,
        ["-m", "maka_runtime_client.cli", *words[1:]],
        env=env,
        dimensions=(24, 80),
        encoding="utf-8",
        codec_errors="replace",
        timeout=20,
    )
    child.expect_exact("\x1b[2J")  # the run's screen is drawn: the terminal is raw, attached
    child.send("typed-by-ref\r")
    child.expect("typed-by-ref")
    child.sendcontrol("p")
    child.sendcontrol("q")
    child.expect("detached from")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    logs = run_as_typed(["logs", ref], env)
    assert logs.returncode == 0, logs.stderr
    assert "typed-by-ref" in logs.stdout

    # The default session has none of it; --all and the session's name find it.
    assert ref not in run_as_typed(["ps"], env).stdout
    listed = run_as_typed(["ps", "--all"], env)
    assert listed.returncode == 0, listed.stderr
    [row] = [line.split("\t") for line in listed.stdout.splitlines() if line.startswith(ref)]
    assert row[1] == session.stdout.strip() and row[2] == "running"
    assert ref in run_as_typed(["ps", "--session", "refs-demo"], env).stdout

    stopped = run_as_typed(["stop", ref], env)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.startswith(f"{ref} cancelled")


def test_runs_and_sessions_by_id_prefix_and_name(
    pair: Pair, workspace: Path, tmp_path: Path
) -> None:
    env = env_for(pair, tmp_path)
    twins = [
        run_as_typed(["new", "--name", "twin", str(workspace)], env).stdout.strip()
        for _ in range(2)
    ]
    solo = run_as_typed(["new", "--name", "solo", str(workspace)], env).stdout.strip()

    # Sessions: a unique id prefix, a name; an ambiguous name names every candidate.
    shown = run_as_typed(["--json", "show", solo[:8]], env)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["session"]["id"] == solo
    renamed = run_as_typed(["rename", "solo", "single"], env)
    assert renamed.returncode == 0 and renamed.stdout.strip() == solo, renamed.stderr
    twin = run_as_typed(["show", "twin"], env)
    assert twin.returncode == 1
    assert "(AMBIGUOUS)" in twin.stderr and all(t in twin.stderr for t in twins), twin.stderr
    assert len(twin.stderr.strip().splitlines()) == 1
    missing = run_as_typed(["show", "no-such-session"], env)
    assert (missing.returncode, missing.stderr.strip()) == (
        1,
        "maka: error: no session 'no-such-session' (by id, id prefix or name) (NOT_FOUND)",
    )

    # Runs: a unique id prefix works without a session; a shared prefix is ambiguous. Ids are
    # random hex, so among 17 runs two share a first digit.
    refs: list[str] = []
    by_first: dict[str, list[str]] = {}
    while not any(len(group) > 1 for group in by_first.values()):
        ref = run_as_typed(["bg", "--session", "single", "--", "sleep 600"], env).stdout.strip()
        assert ref.startswith(REF_PREFIX), ref
        refs.append(ref)
        by_first.setdefault(ref[len(REF_PREFIX)], []).append(ref)
    shared = next(group for group in by_first.values() if len(group) > 1)
    ambiguous = run_as_typed(["logs", shared[0][len(REF_PREFIX)]], env)
    assert ambiguous.returncode == 1
    assert "(AMBIGUOUS)" in ambiguous.stderr
    assert all(ref in ambiguous.stderr for ref in shared), ambiguous.stderr
    unique = shared[0][len(REF_PREFIX) :][:12]
    stopped = run_as_typed(["stop", unique], env)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.startswith(f"{shared[0]} cancelled")
    # A session that is not the run's does not find it.
    elsewhere = run_as_typed(["logs", "--session", twins[0], shared[1]], env)
    assert elsewhere.returncode == 1 and "(NOT_FOUND)" in elsewhere.stderr, elsewhere.stderr
    for ref in refs:
        run_as_typed(["stop", ref], env)


def test_global_flags_after_the_command(pair: Pair, workspace: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKA_")}
    env.update(auth.ENV)  # the suite's credential (tests.support.auth)
    env["HOME"] = str(tmp_path)
    flags = ["--kernel", pair.kernel.address, "--resource", pair.proxy.address]
    created = run_as_typed(["new", str(workspace), *flags, "--json"], env)
    assert created.returncode == 0, created.stderr
    session = json.loads(created.stdout)["id"]
    started = run_as_typed(["bg", "--session", session, *flags, "--", "sleep 600"], env)
    assert started.returncode == 0, started.stderr
    ref = started.stdout.strip()
    listed = run_as_typed(["ps", "--all", "--json", *flags], env)
    assert listed.returncode == 0, listed.stderr
    assert ref in [json.loads(line)["ref"] for line in listed.stdout.splitlines()]
    # Before and after: the one after the command wins.
    stopped = run_as_typed(
        ["--kernel", "127.0.0.1:9", "--resource", "127.0.0.1:9", "stop", ref, *flags], env
    )
    assert stopped.returncode == 0, stopped.stderr


def test_maka_turn_prints_the_exact_figures_of_truncated_output(
    pair: Pair, workspace: Path, tmp_path: Path
) -> None:
    created = maka(pair, "new", str(workspace), home=tmp_path)
    session = created.stdout.strip()
    # Two million x as fast as they can be written: the kernel's record does not depend on pace.
    command = "head -c 2000000 /dev/zero | tr '\\0' x; echo -n oops >&2"
    turn = maka(pair, "turn", session, command, "--approve", "once", home=tmp_path)
    assert turn.returncode == 0, turn.stderr
    line = re.search(
        r"^output truncated: stdout (\d+) bytes, (\d+) omitted \(first (\d+) kept\)"
        rf"; the complete output: maka output ({re.escape(REF_PREFIX)}\S+)$",
        turn.stdout,
        re.MULTILINE,
    )
    assert line, turn.stdout[-2000:]
    total, omitted, kept = (int(line.group(i)) for i in (1, 2, 3))
    assert (kept, total) == (1024 * 1024, 2_000_000) and total == kept + omitted
    assert "stderr" not in line.group(0)  # its 4 bytes were kept whole
    # The ref printed is the run's: `maka output` gives every byte the kernel did not keep.
    kept_output = run_as_typed(
        ["output", line.group(4), "--stream", "stdout"], env_for(pair, tmp_path)
    )
    assert kept_output.returncode == 0, kept_output.stderr
    assert kept_output.stdout == "x" * 2_000_000
    logs = run_as_typed(["logs", line.group(4)], env_for(pair, tmp_path))
    assert logs.returncode == 0, logs.stderr
    assert logs.stdout.endswith("x") and logs.stderr == "oops"


def test_every_principal_gets_its_own_default_session(tmp_path: Path) -> None:
    """bob's ``maka ps`` made ``default``; carol's then failed with ALREADY_EXISTS."""
    people = {name: new_token() for name in ("bob", "carol")}
    tokens = tmp_path / "people.json"
    suite = json.loads(auth.TOKEN_FILE.read_text())["tokens"]
    mine = [
        {"principal": n, "roles": ["client"], "sha256": hash_token(t)} for n, t in people.items()
    ]
    tokens.write_text(json.dumps({"tokens": [*suite, *mine]}))
    tokens.chmod(0o600)
    flag = ("--token-file", str(tokens))
    pair = start_pair(tmp_path, *flag, resource_args=flag)
    try:
        workspace = tmp_path / "workspace"
        workspace.mkdir()
        for name, token in people.items():
            listed = maka(pair, "--token", token, "ps", home=tmp_path, cwd=workspace)
            assert listed.returncode == 0, listed.stderr
            shown = maka(pair, "--token", token, "--json", "show", f"default-{name}", home=tmp_path)
            assert shown.returncode == 0, shown.stderr
            assert json.loads(shown.stdout)["session"]["owner"] == name
        # A client may not start runs in a session the kernel registered: the hint says how.
        run = maka(
            pair, "--token", people["bob"], "run", "--", "true", home=tmp_path, cwd=workspace
        )
        assert run.returncode == 1
        assert "run through the kernel" in run.stderr and "maka turn" in run.stderr, run.stderr
        assert "use a credential with that role" not in run.stderr
        assert run.stderr.rstrip().endswith("(PERMISSION_DENIED)"), run.stderr
    finally:
        pair.stop()
        pair.proxy.close()


def test_danger_full_access_shows_on_every_result_in_turn_show_and_ls(
    pair: Pair, workspace: Path, tmp_path: Path
) -> None:
    created = maka(
        pair, "new", "--profile", "danger-full-access", "--name", "unsandboxed",
        str(workspace), home=tmp_path,
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    session = created.stdout.strip()
    unsandboxed = "ran without a sandbox (danger-full-access)"
    # A background run's result (it reports the ref at once) says so like a foreground one.
    background = maka(pair, "turn", session, "/bg true", "--approve", "once", home=tmp_path)
    assert background.returncode == 0, background.stderr
    lines = background.stdout.splitlines()
    [result] = [i for i, line in enumerate(lines) if line.startswith("tool result [")]
    assert "attach with: maka attach" in lines[result] and lines[result + 1] == unsandboxed
    foreground = maka(pair, "turn", session, "echo hi", "--approve", "once", home=tmp_path)
    assert foreground.returncode == 0, foreground.stderr
    assert re.search(rf"^tool result \(exit 0\) \[\S+\]\n{re.escape(unsandboxed)}$",
                     foreground.stdout, re.MULTILINE), foreground.stdout  # fmt: skip

    # `maka show`: the line is part of its entry, with the entry's sequence number.
    shown = maka(pair, "show", session, "--limit", "100", home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    entries = re.findall(
        rf"^ +(\d+)  tool result[^\n]*\n +(\d+)  {re.escape(unsandboxed)}$",
        shown.stdout,
        re.MULTILINE,
    )
    assert len(entries) == 2 and all(a == b for a, b in entries), shown.stdout
    assert not re.search(rf"^{re.escape(unsandboxed)}", shown.stdout, re.MULTILINE)

    # `maka ls` has a PROFILE column (and --json the session's boundary profile).
    listing = maka(pair, "ls", home=tmp_path)
    assert listing.returncode == 0, listing.stderr
    header, *rows = (line.split("\t") for line in listing.stdout.splitlines())
    assert header[:4] == ["ID", "NAME", "STATUS", "PROFILE"]
    assert [session, "unsandboxed", "active", "danger-full-access"] in [r[:4] for r in rows]
    listed = maka(pair, "--json", "ls", home=tmp_path)
    [record] = [r for r in map(json.loads, listed.stdout.splitlines()) if r["id"] == session]
    assert record["boundary"]["profile"] == "PERMISSION_PROFILE_DANGER_FULL_ACCESS"
