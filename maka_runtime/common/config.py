"""Command-line flags and environment variables shared by both services.

Every setting has a flag and environment names; precedence is flag, then
``MAKA_<SERVICE>_<NAME>`` (e.g. ``MAKA_KERNEL_LISTEN``), then ``MAKA_<NAME>``, then the
default. Values from the environment are validated exactly like flags. A bad value exits with
status 2 and one line on stderr naming the setting. A boolean setting is a pair of flags,
``--name`` and ``--no-name``; in the environment it is ``1``/``true``/``yes``/``on`` or
``0``/``false``/``no``/``off`` (any case; empty means off).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import platformdirs

LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")


class OneLineArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line: ``prog: error: message``."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def listen_address(value: str) -> str:
    """Validate ``HOST:PORT`` (IPv6 hosts in brackets); the port may be 0 for any free port."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"port must be a number from 0 to 65535, got {port!r}")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise argparse.ArgumentTypeError(f"an IPv6 host needs brackets, e.g. [::1]:{port}")
    return value


def metrics_address(value: str) -> str:
    """``PORT``, ``:PORT`` or ``HOST:PORT`` to serve metrics on; without a host, loopback."""
    text = value.strip()
    if text.isdigit():
        text = f":{text}"
    if text.startswith(":"):
        text = f"127.0.0.1{text}"
    return listen_address(text)


def target_address(value: str) -> str:
    """Validate an address to dial: ``HOST:PORT`` with a non-zero port."""
    listen_address(value)
    if value.rpartition(":")[2] == "0":
        raise argparse.ArgumentTypeError(f"cannot dial port 0 in {value!r}")
    return value


def positive_seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {value!r}") from None
    if not 0 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(f"expected 0 to 3600 seconds, got {value!r}")
    return seconds


def bounded_int(low: int, high: int, unit: str = "") -> Callable[[str], int]:
    """A validator of a whole number from *low* to *high* (a count or a size in bytes)."""
    what = f" {unit}" if unit else ""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"expected {low} to {high}{what}, got {value!r}")
        return number

    return parse


#: Pages stay below a default client's 4 MiB receive limit with room for framing.
PAGE_BYTES_RANGE = (64 * 1024, 3 * 1024 * 1024)
DEFAULT_PAGE_BYTES = 2 * 1024 * 1024


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


_BYTE_UNITS = {"": 1, "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2}
MAX_BYTES_SETTING = 1024**3


def byte_size(value: str) -> int:
    """A size in bytes: a whole number, optionally with ``KiB`` or ``MiB`` (``4MiB``)."""
    text = value.strip().lower().replace(" ", "")
    digits = text.rstrip("kimb")
    unit = text[len(digits) :]
    if not digits.isdigit() or unit not in _BYTE_UNITS:
        raise argparse.ArgumentTypeError(
            f"expected a size in bytes (e.g. 4194304 or 4MiB), got {value!r}"
        )
    size = int(digits) * _BYTE_UNITS[unit]
    if not 1024 <= size <= MAX_BYTES_SETTING:
        raise argparse.ArgumentTypeError(f"expected 1KiB to 1024MiB, got {value!r}")
    return size


def boolean(value: str) -> bool:
    """A boolean from the environment: 1/true/yes/on or 0/false/no/off (any case; empty: off)."""
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"expected true or false (1/0, yes/no, on/off), got {value!r}")


def default_data_dir() -> Path:
    """The per-user data directory (``~/.local/share/maka-runtime`` on Linux)."""
    return Path(platformdirs.user_data_dir("maka-runtime", appauthor=False))


@dataclass(frozen=True)
class CommonConfig:
    """Settings every service has."""

    service: str
    listen: str
    data_dir: Path
    log_level: str
    shutdown_grace: float
    #: The largest request message the service takes (bigger: REQUEST_TOO_LARGE).
    max_request_bytes: int = 4 * 1024 * 1024
    #: Where the transport stops reading a message (gRPC's own refusal, without ErrorInfo).
    max_transport_bytes: int = 16 * 1024 * 1024
    #: Extra bearer tokens (hashed) and certificate roles (:mod:`maka_runtime.common.auth`).
    token_file: Path | None = None
    #: Serve TLS with this certificate chain and key (PEM files); both or neither.
    tls_cert: Path | None = None
    tls_key: Path | None = None
    #: Require client certificates signed by this CA (mutual TLS); needs tls_cert/tls_key.
    tls_client_ca: Path | None = None
    #: Let a plaintext listener bind a non-loopback address (warned at every start).
    allow_insecure_listen: bool = False
    #: Serve Prometheus metrics over HTTP here (``HOST:PORT``); None: no metrics endpoint.
    metrics_listen: str | None = None
    #: ``text`` (one readable line) or ``json`` (one object per line), see maka_runtime.common.logs.
    log_format: str = "text"
    #: Trace with OpenTelemetry (maka_runtime.common.tracing; the standard OTEL_* environment).
    otel: bool = False

    @property
    def credentials(self) -> Path:
        """Where the local credential lives (shared by the pair)."""
        return self.data_dir / "credentials"

    @property
    def service_data_dir(self) -> Path:
        """Each service keeps its own storage root below the shared data directory."""
        return self.data_dir / self.service


def _path(value: str) -> Path | None:
    return Path(value).expanduser().resolve() if value else None


class SettingsParser:
    """Builds a service's parser, reading defaults from the environment."""

    def __init__(
        self,
        *,
        service: str,
        description: str,
        default_port: int,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.service = service
        self.env = dict(os.environ if env is None else env)
        self.parser = OneLineArgumentParser(prog=f"maka-{service}", description=description)
        self._add_common(default_port)
        self._add_security()
        self._add_observability()

    def _add_common(self, default_port: int) -> None:
        service = self.service
        self.add(
            "listen",
            type=listen_address,
            default=f"127.0.0.1:{default_port}",
            metavar="HOST:PORT",
            help="address to serve on; port 0 picks a free port (reported in the log)",
        )
        self.add(
            "data-dir",
            type=Path,
            default=str(default_data_dir()),
            metavar="DIR",
            help=f"data directory; this service owns DIR/{service}",
        )
        self.add("log-level", choices=LOG_LEVELS, default="info", help="logging verbosity")
        self.add(
            "shutdown-grace",
            type=positive_seconds,
            default="10",
            metavar="SECONDS",
            help="how long a shutdown lets running work finish before stopping it",
        )
        self.add(
            "max-request-bytes",
            type=byte_size,
            default="4MiB",
            metavar="BYTES",
            help="largest request message taken; bigger ones are RESOURCE_EXHAUSTED "
            "(REQUEST_TOO_LARGE)",
        )
        self.add(
            "max-transport-bytes",
            type=byte_size,
            default="16MiB",
            metavar="BYTES",
            help="where gRPC itself stops reading a message (no ErrorInfo above it); at least "
            "--max-request-bytes",
        )

    def _add_security(self) -> None:
        self.add(
            "token-file",
            default="",
            metavar="FILE",
            help="JSON file of hashed bearer tokens and certificate roles, re-read when it "
            "changes or on SIGHUP (the local credential is always accepted)",
        )
        self.add("tls-cert", default="", metavar="PEM", help="serve TLS with this certificate")
        self.add("tls-key", default="", metavar="PEM", help="private key of --tls-cert")
        self.add(
            "tls-client-ca",
            default="",
            metavar="PEM",
            help="require client certificates signed by this CA (mutual TLS)",
        )
        self.add_flag(
            "allow-insecure-listen",
            help="allow a plaintext listener on a non-loopback address (warned at every start)",
        )

    def _add_observability(self) -> None:
        self.add(
            "metrics-listen",
            type=lambda v: metrics_address(v) if v else v,
            default="",
            metavar="[HOST:]PORT",
            help="serve Prometheus metrics on http://HOST:PORT/metrics (no host: 127.0.0.1; "
            "empty: off; a non-loopback host needs --allow-insecure-listen)",
        )
        self.add("log-format", choices=LOG_FORMATS, default="text", help="log line format")
        self.add_flag("otel", help="trace gRPC calls with OpenTelemetry (OTEL_* environment)")

    def env_names(self, name: str) -> tuple[str, str]:
        key = name.upper().replace("-", "_")
        return f"MAKA_{self.service.upper()}_{key}", f"MAKA_{key}"

    def add(
        self,
        name: str,
        *,
        default: str,
        help: str,
        type: Callable[[str], Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Add ``--name`` whose default comes from the environment when set there."""
        specific, generic = self.env_names(name)
        value = self.env.get(specific, self.env.get(generic, default))
        source = specific if specific in self.env else generic if generic in self.env else None
        if source is not None and type is not None:
            try:
                type(value)
            except (argparse.ArgumentTypeError, ValueError) as error:
                self.parser.error(f"{source}: {error}")
        choices = kwargs.get("choices")
        if source is not None and choices is not None and value not in choices:
            self.parser.error(f"{source}: invalid choice {value!r} (choose from {choices})")
        if type is not None:
            kwargs["type"] = type
        self.parser.add_argument(
            f"--{name}",
            default=value,
            help=f"{help} (env {specific} or {generic}; default %(default)s)",
            **kwargs,
        )

    def add_flag(self, name: str, *, help: str, default: bool = False) -> None:
        """Add the boolean ``--name`` / ``--no-name`` whose default comes from the environment
        when set there (see :func:`boolean`)."""
        specific, generic = self.env_names(name)
        source = specific if specific in self.env else generic if generic in self.env else None
        value = default
        if source is not None:
            try:
                value = boolean(self.env[source])
            except argparse.ArgumentTypeError as error:
                self.parser.error(f"{source}: {error}")
        dest = name.replace("-", "_")
        state = "on" if value else "off"
        self.parser.add_argument(
            f"--{name}",
            dest=dest,
            action="store_true",
            default=value,
            help=f"{help} (env {specific} or {generic}; default {state})",
        )
        self.parser.add_argument(
            f"--no-{name}",
            dest=dest,
            action="store_false",
            default=value,
            help=f"turn --{name} off",
        )

    def parse(self, argv: Sequence[str] | None) -> tuple[CommonConfig, argparse.Namespace]:
        ns = self.parser.parse_args(argv)
        max_request, max_transport = int(ns.max_request_bytes), int(ns.max_transport_bytes)
        if max_transport < max_request:
            self.parser.error(
                f"--max-transport-bytes ({max_transport}) must be at least "
                f"--max-request-bytes ({max_request})"
            )
        common = CommonConfig(
            service=self.service,
            listen=ns.listen,
            data_dir=Path(ns.data_dir).expanduser().resolve(),
            log_level=ns.log_level,
            shutdown_grace=float(ns.shutdown_grace),
            max_request_bytes=max_request,
            max_transport_bytes=max_transport,
            token_file=_path(ns.token_file),
            tls_cert=_path(ns.tls_cert),
            tls_key=_path(ns.tls_key),
            tls_client_ca=_path(ns.tls_client_ca),
            allow_insecure_listen=bool(ns.allow_insecure_listen),
            metrics_listen=ns.metrics_listen or None,
            log_format=ns.log_format,
            otel=bool(ns.otel),
        )
        if (common.tls_cert is None) != (common.tls_key is None):
            self.parser.error("--tls-cert and --tls-key go together")
        if common.tls_client_ca is not None and common.tls_cert is None:
            self.parser.error("--tls-client-ca needs --tls-cert and --tls-key")
        return common, ns
