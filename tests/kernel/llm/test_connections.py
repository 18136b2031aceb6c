"""The LLM connections file and how a session picks its connection, model and key."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict, Unpack

import pytest

from maka_runtime.kernel.backends.llm import (
    DEFAULT_TIMEOUT_S,
    LlmConnection,
    LlmUnavailableError,
    load_connections,
    resolve_settings,
)
from maka_runtime.kernel.core import SessionHeader

GOOD = """
[connections.local]
base_url = "http://127.0.0.1:8080/v1/"
api_key_env = "LOCAL_LLM_KEY"
model = "some-model"
timeout_s = 60

[connections.cloud]
base_url = "https://api.example.com/v1"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "llm.toml"
    path.write_text(text)
    return path


def test_a_connections_file_is_read_with_defaults(tmp_path: Path) -> None:
    connections = load_connections(write(tmp_path, GOOD))
    assert connections == {
        "local": LlmConnection(
            slug="local",
            base_url="http://127.0.0.1:8080/v1/",
            api_key_env="LOCAL_LLM_KEY",
            model="some-model",
            timeout_s=60.0,
        ),
        "cloud": LlmConnection(slug="cloud", base_url="https://api.example.com/v1"),
    }
    assert connections["cloud"].timeout_s == DEFAULT_TIMEOUT_S
    assert connections["local"].url == "http://127.0.0.1:8080/v1/chat/completions"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[connections.a]\nmodel = 'm'\n", "connection 'a': missing key 'base_url'"),
        (
            "[connections.a]\nbase_url = 'ftp://x'\n",
            "connection 'a': key 'base_url' must be an http:// or https:// URL",
        ),
        (
            "[connections.a]\nbase_url = 'http://x'\nbase-url = 'http://y'\n",
            "connection 'a': unknown key 'base-url'",
        ),
        (
            "[connections.a]\nbase_url = 'http://x'\ntimeout_s = 0\n",
            "connection 'a': key 'timeout_s' must be a positive number",
        ),
        (
            "[connections.a]\nbase_url = 'http://x'\ntimeout_s = true\n",
            "connection 'a': key 'timeout_s' must be a positive number",
        ),
        (
            "[connections.a]\nbase_url = 'http://x'\napi_key_env = 'not a name'\n",
            "connection 'a': key 'api_key_env' must be an environment variable name",
        ),
        (
            "[connections.a]\nbase_url = 'http://x'\nmodel = 3\n",
            "connection 'a': key 'model' must be a string",
        ),
        ("[connections]\na = 'http://x'\n", "connection 'a': must be a table"),
        ("[connections.'bad slug']\nbase_url = 'http://x'\n", "connection 'bad slug': the name"),
        ("[other]\n", "unknown key 'other'"),
        ("", "no connections"),
        ("[connections.a\n", "not a valid TOML file"),
    ],
)
def test_a_bad_connections_file_is_one_clear_line(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as error:
        load_connections(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_a_missing_connections_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    with pytest.raises(ValueError, match=f"^{path}: cannot read the LLM connections file"):
        load_connections(path)


class HeaderFields(TypedDict, total=False):
    """The header fields these tests set (each as typed in :class:`SessionHeader`)."""

    llm_connection_slug: str
    model: str
    backend_options: Mapping[str, str]


def header(**fields: Unpack[HeaderFields]) -> SessionHeader:
    return SessionHeader(
        id="s1", workspace_root="/w", cwd="/w", created_at=1, last_used_at=1, **fields
    )


ONE = {"local": LlmConnection(slug="local", base_url="http://x/v1", model="m1")}
TWO = {
    **ONE,
    "cloud": LlmConnection(slug="cloud", base_url="https://y/v1", api_key_env="CLOUD_KEY"),
}


def test_the_only_connection_is_the_default_and_the_session_model_wins() -> None:
    settings = resolve_settings(ONE, header(), environ={})
    assert (settings.connection.slug, settings.model, settings.api_key) == ("local", "m1", "")
    assert resolve_settings(ONE, header(model="m2"), environ={}).model == "m2"
    assert (
        resolve_settings(ONE, header(backend_options={"max_steps": "3"}), environ={}).max_steps == 3
    )


def test_the_slug_picks_a_connection_and_its_key_is_read_from_the_environment() -> None:
    settings = resolve_settings(
        TWO, header(llm_connection_slug="cloud", model="big"), environ={"CLOUD_KEY": "k"}
    )
    assert (settings.connection.slug, settings.model, settings.api_key) == ("cloud", "big", "k")


@pytest.mark.parametrize(
    ("connections", "fields", "expected"),
    [
        (TWO, {}, "several are configured (cloud, local): set its llm_connection_slug"),
        ({}, {}, "no LLM connection is configured"),
        (TWO, {"llm_connection_slug": "x"}, "no LLM connection 'x' (known: cloud, local)"),
        (
            TWO,
            {"llm_connection_slug": "cloud"},
            "no model: the session sets none and LLM connection 'cloud' has no default model",
        ),
        (
            TWO,
            {"llm_connection_slug": "cloud", "model": "big"},
            "the API key variable CLOUD_KEY of LLM connection 'cloud' is not set",
        ),
    ],
)
def test_what_is_missing_is_named(
    connections: dict[str, LlmConnection], fields: HeaderFields, expected: str
) -> None:
    with pytest.raises(LlmUnavailableError) as error:
        resolve_settings(connections, header(**fields), environ={})
    assert str(error.value) == expected or expected in str(error.value)
    assert error.value.error_code == "llm_unavailable"


def test_a_bad_max_steps_option_is_refused() -> None:
    with pytest.raises(ValueError, match=r"max_steps must be 1\.\.1000, not '0'"):
        resolve_settings(ONE, header(backend_options={"max_steps": "0"}), environ={})


def test_the_backend_imports_neither_grpc_nor_generated_code() -> None:
    import ast

    from maka_runtime.kernel.backends import llm

    assert llm.__file__ is not None
    for path in sorted(Path(llm.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        imported = [
            name
            for node in ast.walk(tree)
            for name in (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
        ]
        assert imported
        assert not [
            n
            for n in imported
            if n.split(".")[0] in ("grpc", "maka_runtime_proto", "maka_runtime_client")
        ]
