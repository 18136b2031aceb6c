"""``maka turn SESSION TEXT``: stream a turn live, answer its requests, stop it with Ctrl-C.

The first Ctrl-C asks the kernel to stop after the current step, the second to stop now. The
kernel records the abort when the stop is delivered; after a first press maka stays until the
current step has ended (the turn has settled), so a second press can still stop it now. Exit status:
0 completed, 1 failed, 130 aborted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import uuid
from typing import Any

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime_client._kernel import KernelClient
from maka_runtime_client.cli import prompt
from maka_runtime_client.cli.context import Context
from maka_runtime_client.cli.events import describe_entry, turn_status
from maka_runtime_client.cli.resolve import resolve_session
from maka_runtime_client.errors import AlreadyResolvedError, InvalidRequestError, MakaError

EXIT_CODES = {pb.TURN_STATUS_COMPLETED: 0, pb.TURN_STATUS_FAILED: 1, pb.TURN_STATUS_ABORTED: 130}


def register(commands: Any) -> None:
    parser = commands.add_parser("turn", help="run a turn and stream it live")
    parser.add_argument("session", help="the session: its id, its name, or a unique id prefix")
    parser.add_argument("text")
    parser.add_argument(
        "--approve",
        choices=sorted(prompt.DECISIONS),
        default=None,
        help="answer sandbox-boundary requests without asking",
    )
    parser.add_argument("--answer", default=None, help="answer user questions without asking")
    parser.add_argument(
        "--turn-id",
        default="",
        help="the turn's id (default: a new one); `maka interrupt --turn` can stop it by that id "
        "even before it has started",
    )
    parser.set_defaults(handler=cmd_turn)


class TurnView:
    """Streams one turn to the output and answers its requests."""

    def __init__(self, ctx: Context, kernel: KernelClient, args: argparse.Namespace) -> None:
        self.ctx = ctx
        self.out = ctx.out
        self.kernel = kernel
        self.session_id: str = args.session
        #: Chosen here, so that Ctrl-C stops this turn even before the kernel has admitted it.
        self.turn_id: str = args.turn_id or uuid.uuid4().hex
        self.approve: str | None = args.approve
        self.answer: str | None = args.answer
        self.interactive = sys.stdin.isatty()
        self.in_text = False
        self.message_id = ""
        self.prompts: dict[str, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.interrupts = 0
        self.failure: BaseException | None = None
        main = asyncio.current_task()
        assert main is not None
        self.main = main

    # -- Ctrl-C ---------------------------------------------------------------------------------

    def interrupt(self) -> None:
        self.interrupts += 1
        for task in self.prompts.values():
            task.cancel()
        mode, label = (
            (pb.STOP_MODE_AFTER_STEP, "after the current step (Ctrl-C again to stop now)")
            if self.interrupts == 1
            else (pb.STOP_MODE_IMMEDIATE, "now")
        )
        self._break_line()
        self.out.note(f"maka: stopping the turn {label}", "yellow")
        self._spawn(self._stop(mode))

    def waiting_for_step(self) -> None:
        self._break_line()
        self.out.note(
            "maka: waiting for the current step to finish (Ctrl-C again to stop it now)", "yellow"
        )

    async def _stop(self, mode: pb.StopMode.ValueType) -> None:
        try:
            await self.kernel.stop_session(
                self.session_id, source="cli", mode=mode, turn_id=self.turn_id
            )
        except MakaError as error:
            self.out.note(f"maka: stop failed: {error.message} ({error.reason or error.code.name})")
            return
        name = "after_step" if mode == pb.STOP_MODE_AFTER_STEP else "immediate"
        self.out.note(f"maka: stop requested ({name})", "yellow")
        if mode == pb.STOP_MODE_AFTER_STEP and self.interrupts == 1:
            # Delivered: the turn ends (and is recorded aborted) when its current step does.
            self.waiting_for_step()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- events ---------------------------------------------------------------------------------

    def _break_line(self) -> None:
        if self.in_text:
            self.out.write("\n")
            self.in_text = False

    def show(self, event: pb.SessionEvent) -> None:
        kind = event.WhichOneof("event")
        if self.out.json:
            self.out.record(event)
        elif kind == "text_delta":
            if event.text_delta.message_id != self.message_id:
                self._break_line()
                self.message_id = event.text_delta.message_id
            self.out.write(event.text_delta.text)
            self.in_text = True
        elif kind == "tool_output":
            self._break_line()
            self.out.line(event.tool_output.text.rstrip("\n"), "dim")
        else:
            self._break_line()
            text, style = describe_entry(event)
            self.out.line(text, style)
        if kind == "sandbox_boundary_request":
            self._request(event.sandbox_boundary_request.request_id, self._approve)
        elif kind == "user_question_request":
            question = event.user_question_request
            self._request(
                question.request_id,
                lambda rid: self._respond_question(rid, list(question.options)),
            )
        elif kind == "interaction_resolved":
            task = self.prompts.pop(event.interaction_resolved.request_id, None)
            if task is not None:
                task.cancel()

    def _request(self, request_id: str, respond: Any) -> None:
        if self.interrupts:
            return
        task = asyncio.ensure_future(respond(request_id))
        self.prompts[request_id] = task
        task.add_done_callback(lambda _: self.prompts.pop(request_id, None))
        task.add_done_callback(self._check)

    def _check(self, task: asyncio.Task[None]) -> None:
        # A refused answer given by flag cannot be corrected: end the command with the error
        # (the abandoned StartTurn stream stops the turn).
        if task.cancelled() or task.exception() is None:
            return
        if self.failure is None:
            self.failure = task.exception()
            self.main.cancel()

    async def _approve(self, request_id: str) -> None:
        if self.approve is None and not self.interactive:
            self._waiting("--approve once|session|deny")
            return
        while True:
            choice = self.approve or await prompt.ask_decision(self.out)
            if choice is None:
                return
            call = self.kernel.respond_to_sandbox_boundary(
                self.session_id, request_id, prompt.DECISIONS[choice]
            )
            if await self._respond(call, retry=self.approve is None):
                return

    async def _respond_question(self, request_id: str, options: list[str]) -> None:
        if self.answer is None and not self.interactive:
            self._waiting("--answer TEXT")
            return
        while True:
            answer = self.answer or await prompt.ask_answer(self.out, options)
            if answer is None:
                return
            call = self.kernel.respond_to_user_question(self.session_id, request_id, [answer])
            if await self._respond(call, retry=self.answer is None):
                return

    def _waiting(self, flag: str) -> None:
        self.out.note(f"maka: waiting for an answer from another client (or use {flag})")

    async def _respond(self, call: Any, *, retry: bool) -> bool:
        """Send an answer; False when it was refused and should be asked again."""
        try:
            await call
        except AlreadyResolvedError:
            pass  # answered elsewhere first: its interaction_resolved event says how
        except InvalidRequestError as error:
            if not retry:
                raise
            self.out.note(f"maka: {error.message}", "red")
            return False
        return True


async def cmd_turn(ctx: Context, args: argparse.Namespace) -> int:
    loop = asyncio.get_running_loop()
    async with ctx.kernel() as kernel:
        args.session = await resolve_session(kernel, args.session)
        view = TurnView(ctx, kernel, args)
        loop.add_signal_handler(signal.SIGINT, view.interrupt)
        status = pb.TURN_STATUS_UNSPECIFIED
        stream = kernel.start_turn(args.session, args.text, turn_id=view.turn_id)
        try:
            async for event in stream:
                view.show(event)
                if event.WhichOneof("event") == "turn_state":
                    status = event.turn_state.status
            if status == pb.TURN_STATUS_ABORTED and view.interrupts == 1:
                # The stop is on the record, but the current step may still be running; stay
                # until it ends, so a second Ctrl-C can still stop it now.
                view.waiting_for_step()
                await kernel.wait_until_settled(args.session, stream.turn_id, args.text)
        except asyncio.CancelledError:
            if view.failure is None:
                raise
            raise view.failure from None
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            await stream.aclose()
            for task in [*view.prompts.values(), *view.tasks]:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, MakaError):
                    await task
        view._break_line()
    if not ctx.out.json:
        ctx.out.status(f"turn {stream.turn_id}: {turn_status(status)}")
    return EXIT_CODES.get(status, 1)
