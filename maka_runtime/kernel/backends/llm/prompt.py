"""What the model is told: the system prompt and the tools it may call."""

from __future__ import annotations

from typing import Any, Final

from maka_runtime.kernel.backends.llm.boundary_tool import SPEC as BOUNDARY_TOOL
from maka_runtime.kernel.core.session import SessionHeader

TOOLS: Final[list[dict[str, Any]]] = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": (
                "Run a shell command with bash -c in the session's working directory and return "
                "its output and exit status. Set background to true for long-running or "
                "interactive programs: the command then starts in a terminal the user can attach "
                "to, and the result reports its run ref instead of its output."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line to run."},
                    "background": {
                        "type": "boolean",
                        "description": "Start it in the background (default false).",
                    },
                    "timeout_ms": {
                        "type": "integer",
                        "description": "Stop it after this many milliseconds (foreground: at "
                        "most 600000, default 120000).",
                    },
                },
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "ask_user",
            "description": (
                "Ask the user a question and wait for the answer. Offer options when the answer "
                "is one of a few choices."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "question": {"type": "string", "description": "The question."},
                    "options": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Answers to choose from (optional).",
                    },
                },
                "required": ["question"],
            },
        },
    },
    BOUNDARY_TOOL,
]
TOOL_NAMES: Final = tuple(tool["function"]["name"] for tool in TOOLS)


def system_prompt(header: SessionHeader) -> str:
    """The conversation's first message (``backend_options["system_prompt"]`` replaces it)."""
    custom = header.backend_options.get("system_prompt", "")
    if custom:
        return custom
    approval = (
        "Each command needs the user's approval before it runs; a denied command ends the turn. "
        "Commands run in a sandbox; when one needs more (a write outside the workspace, the "
        "network), call request_sandbox_boundary, then retry it."
        if header.permission_mode == "ask"
        else "Commands run without asking the user."
    )
    return (
        "You are a coding agent working in the workspace "
        f"{header.workspace_root} (working directory {header.cwd or header.workspace_root}). "
        "Use the bash tool to inspect and change files and to run programs; use the ask_user "
        f"tool when you need a decision from the user. {approval} When the task is done, "
        "answer with a short summary and no tool call."
    )
