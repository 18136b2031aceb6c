"""``maka turn``: streaming, approvals and questions (prompted and by flag), Ctrl-C stops."""

from __future__ import annotations

import io
import json

import pytest
from maka_runtime_client.cli.events import describe_entry
from maka_runtime_client.cli.output import Output
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb
from maka_runtime_proto.resource.v1 import sandbox_pb2 as sb

from tests.cli.conftest import Maka, finish


def test_turn_streams_and_exits_0(maka: Maka) -> None:
    sid = maka.new_session()
    result = maka("turn", sid, "/script say hello; tool bash ls; say done")
    assert result.returncode == 0, result
    assert "hello" in result.stdout
    assert "tool bash ls" in result.stdout
    assert "turn completed" in result.stdout


def test_turn_json_lines_parse(maka: Maka) -> None:
    sid = maka.new_session()
    events = maka.json("turn", sid, "/script say hi")
    kinds = [next(k for k in e if k in {"text_delta", "turn_state", "complete"}) for e in events]
    assert kinds[0] == "text_delta"
    assert events[-1]["turn_state"]["status"] == "TURN_STATUS_COMPLETED"
    assert all(json.dumps(e) for e in events)


def test_failed_turn_exits_1(maka: Maka) -> None:
    sid = maka.new_session()
    result = maka("turn", sid, "/script say x; fail broken")
    assert result.returncode == 1, result
    assert "turn failed" in result.stdout


def test_approval_and_answer_by_flag(maka: Maka) -> None:
    sid = maka.new_session()
    denied = maka("turn", sid, "/script approve rm -rf build; say after", "--approve", "deny")
    assert "resolved deny" in denied.stdout
    answered = maka(
        "turn", sid, "/script ask Which colour? | red | blue; say ok", "--answer", "blue"
    )
    assert answered.returncode == 0, answered
    assert "resolved answered: blue" in answered.stdout


def test_refused_answer_by_flag_is_an_error(maka: Maka) -> None:
    sid = maka.new_session()
    result = maka("turn", sid, "/script ask Which colour? | red | blue", "--answer", "green")
    assert result.returncode == 1
    assert result.stderr.strip().startswith("maka: error: ")
    assert result.stderr.strip().endswith("(INVALID_REQUEST)")


def test_approval_answered_at_the_prompt(maka: Maka) -> None:
    sid = maka.new_session()
    child = maka.spawn("turn", sid, "/script approve rm -rf build; say approved-now")
    child.expect("approval needed to run 'rm -rf build'")
    child.expect(r"Allow\? \[o\]nce / \[s\]ession / \[d\]eny: ")
    child.sendline("maybe")  # not a choice: asked again
    child.expect(r"\[d\]eny: ")
    child.sendline("o")
    child.expect("resolved allow_once")
    child.expect("approved-now")
    child.expect("turn completed")
    assert finish(child) == 0


def test_question_answered_at_the_prompt(maka: Maka) -> None:
    sid = maka.new_session()
    child = maka.spawn("turn", sid, "/script ask Which colour? | red | blue")
    child.expect(r"2\) blue")
    child.expect("Pick 1-2 or type an answer: ")
    child.sendline("green")  # not an option: the kernel refuses it, and we ask again
    child.expect("is not one of red, blue")
    child.expect("Pick 1-2 or type an answer: ")
    child.sendline("2")
    child.expect("resolved answered: blue")
    assert finish(child) == 0


@pytest.mark.slow
def test_first_ctrl_c_stops_after_the_step_and_the_second_stops_now(maka: Maka) -> None:
    sid = maka.new_session()
    child = maka.spawn("turn", sid, "/script say working; hang")
    child.expect("working")
    child.sendintr()
    child.expect("stopping the turn after the current step")
    # The stop is delivered, but the hanging step still runs (the turn is not over, so nothing
    # terminal is on the record yet): maka stays for a second press.
    child.expect("waiting for the current step to finish")
    assert maka("turn", sid, "/script say again").returncode == 1  # quarantined meanwhile
    child.sendintr()
    child.expect("stopping the turn now")
    child.expect("turn aborted by cli")
    assert finish(child) == 130
    # The immediate stop let the run settle: the session takes a turn again at once.
    assert "again" in maka.ok("turn", sid, "/script say again")
    shown = maka.ok("show", sid)
    assert "note abort" in shown
    assert "turn aborted by cli" in shown


def test_interrupt_escalates_an_after_step_stop_whose_step_never_ends(maka: Maka) -> None:
    sid = maka.new_session()
    child = maka.spawn("turn", sid, "/script say working; hang")
    child.expect("working")
    child.sendintr()
    child.expect("waiting for the current step to finish")
    refused = maka("turn", sid, "/script say again")
    assert refused.returncode == 1
    assert "(SESSION_QUARANTINED)" in refused.stderr
    assert "stopped turn" in maka.ok("interrupt", sid)  # from another terminal
    assert finish(child) == 130  # the waiting maka sees the turn settle and exits
    assert "again" in maka.ok("turn", sid, "/script say again")
    assert "no turn was running" in maka.ok("interrupt", sid)


def test_interrupt_naming_a_turn_not_started_yet_aborts_it_when_it_starts(maka: Maka) -> None:
    sid = maka.new_session()
    assert "stopped turn early1" in maka.ok("interrupt", sid, "--turn", "early1")
    result = maka("turn", sid, "/script say never", "--turn-id", "early1")
    assert (result.returncode, result.stdout) == (130, "turn aborted by cli\n"), result
    assert "never" not in result.stdout
    assert "no turn was running" in maka.ok("interrupt", sid, "--turn", "early1")


#: What a model or a command could print to erase the line above and colour the rest.
FORGERY = "ok\r\x1b[2K\x1b[1A\x1b[8m[red]x[/red]"
SHOWN = "ok\\x0d\\x1b[2K\\x1b[1A\\x1b[8m[red]x[/red]"


def test_no_output_can_erase_or_forge_the_approval_prompt(maka: Maka) -> None:
    # On a terminal: assistant text and tool output just before a request carry escape
    # sequences and Rich markup; they print as visible escapes and literal brackets.
    sid = maka.new_session()
    child = maka.spawn(
        "turn", sid, f"/script say {FORGERY}; tool bash {FORGERY}; approve rm -rf build"
    )
    seen = io.StringIO()
    child.logfile_read = seen
    child.expect_exact("approval needed to run 'rm -rf build'")
    child.expect_exact("[d]eny: ")
    child.sendline("d")
    child.expect_exact("resolved deny")
    assert finish(child) == 0
    printed = seen.getvalue()
    # The text and the output as they came; the tool call and result on one line (\r: a space).
    assert printed.count(SHOWN) == 2, printed
    assert printed.count(SHOWN.removeprefix("ok\\x0d")) == 4, printed
    assert "\n\x1b[35mapproval needed to run 'rm -rf build' (in " in printed
    for raw in ("\x1b[2K", "\x1b[1A", "\x1b[8m", "\r\x1b"):
        assert raw not in printed, (raw, printed)
    assert "\x1b[" in printed  # the CLI's own colours are still there


def test_request_fields_print_escaped_on_the_request_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A justification, a path and a cwd (of an LLM's request_sandbox_boundary call): every
    # field stays on the one request line, its control characters visible.
    request = pb.SessionEvent(
        sandbox_boundary_request=pb.SandboxBoundaryRequest(
            request_id="r1",
            cwd=f"/w/{FORGERY}",
            reason=f"the model asks for it: {FORGERY}\napproval needed to run 'ls'",
            expansion=sb.BoundaryExpansion(
                filesystem=[
                    sb.FilesystemEntry(path=f"/srv/{FORGERY}\n", access=sb.FILESYSTEM_ACCESS_WRITE)
                ]
            ),
        )
    )
    out = Output(json_mode=False)
    out.line(*describe_entry(request))
    printed = capsys.readouterr().out
    assert printed == (
        f"approval needed to widen the sandbox by write /srv/{SHOWN}\\x0a (and below)"
        f" (in /w/{SHOWN}): the model asks for it: {SHOWN}\\x0aapproval needed to run 'ls'\n"
    )


def test_a_result_names_the_once_only_expansion_its_run_carried() -> None:
    once = sb.BoundaryExpansion(
        filesystem=[sb.FilesystemEntry(path="/srv/out", access=sb.FILESYSTEM_ACCESS_WRITE)]
    )
    result = pb.ToolResult(tool_call_id="c1", run_ref="r1", exit_code=0, once_expansion=once)
    text, _ = describe_entry(pb.SessionEvent(tool_result=result))
    assert text.splitlines()[-1] == "allowed once: write /srv/out (and below)"
    plain, _ = describe_entry(pb.SessionEvent(tool_result=pb.ToolResult(tool_call_id="c2")))
    assert "allowed once" not in plain
