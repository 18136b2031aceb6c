"""Authentication at the servicer boundary: who is calling, before any servicer runs.

A call is authenticated by a bearer token (metadata ``authorization: Bearer TOKEN``) or, on a
listener with ``--tls-client-ca``, by its client certificate. The principal it maps to (a
:class:`~maka_runtime.common.principal.Principal`) is available to servicers through
:func:`~maka_runtime.common.principal.current_principal`.

Tokens come from two places, both re-read without a restart:

- the **local credential** ``DATA_DIR/credentials/local.token`` (mode 0600 in a 0700
  directory), created on first start by whichever service of the pair starts first. Its
  principal is ``local`` with every role: a local user keeps doing everything they did before.
  The clients read the same file (the way a Jupyter server hands its token to local clients).
- the **token file** (``--token-file``, JSON), which holds only SHA-256 digests::

      {"tokens": [{"principal": "ci", "roles": ["client"], "sha256": "<hex digest>"}],
       "certificates": {"kernel.example": ["kernel"]}}

  ``certificates`` maps a client certificate's subject common name to its roles (a
  certificate the CA signed but not listed gets ``client``). The file is re-read when its
  modification time changes (checked at most once a second) and on SIGHUP.

Tokens are random (32 bytes from :mod:`secrets`), so a plain SHA-256 digest is enough: a slow
password hash (argon2) protects low-entropy secrets against guessing, and a 256-bit random
token cannot be guessed however fast the hash is. Digests are compared with
:func:`hmac.compare_digest`.

Order in a call's pipeline (:mod:`maka_runtime.common.pipeline`): this :class:`Gate` comes
first, before the request guard (:mod:`maka_runtime.common.request_guard`), and reads only
metadata. A call without a valid
credential is refused ``UNAUTHENTICATED`` before its request is decoded, so an anonymous caller
learns nothing from the size or decoding checks; an authenticated call then goes through the guard
as before. (Under mutual TLS the certificate is checked during the handshake and the principal
is read from it when the call starts.) ``grpc.health.v1`` is open to everyone. A few methods
need a role at the boundary (:data:`METHOD_ROLES`): ``Shutdown`` on both services needs
``operator`` or ``admin``; ``RegisterSession`` and ``ArchiveSession`` on the resource service
need ``kernel``. Every refusal is logged once (principal or ``anonymous``, method, reason); a
served call logs its principal at debug level. Tokens never reach the log.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from maka_runtime_proto.common.v1 import errors_pb2

from maka_runtime.common.principal import (
    ADMIN,
    CLIENT,
    KERNEL,
    LOCAL,
    OPERATOR,
    ROLES,
    Principal,
)
from maka_runtime.common.status import make_status, reason_name

log = logging.getLogger("maka.auth")

UNAUTHENTICATED = reason_name(errors_pb2.ERROR_REASON_UNAUTHENTICATED)
PERMISSION_DENIED = reason_name(errors_pb2.ERROR_REASON_PERMISSION_DENIED)

CREDENTIALS_DIR = "credentials"
LOCAL_TOKEN_NAME = "local.token"
LOCAL_PRINCIPAL = Principal(LOCAL, frozenset(ROLES))

OPEN_PREFIXES = ("/grpc.health.v1.Health/",)
#: Methods only some roles may ever call, decided here because no session is involved.
METHOD_ROLES: Mapping[str, frozenset[str]] = {
    "/maka.kernel.v1.KernelService/Shutdown": frozenset({OPERATOR, ADMIN}),
    "/maka.resource.v1.ResourceService/Shutdown": frozenset({OPERATOR, ADMIN}),
    "/maka.resource.v1.ResourceService/RegisterSession": frozenset({KERNEL}),
    "/maka.resource.v1.ResourceService/ArchiveSession": frozenset({KERNEL}),
}
_RELOAD_CHECK_SECONDS = 1.0
#: How many tokens that authenticated are remembered until the credentials change (see
#: :meth:`Authenticator.by_token`).
REMEMBERED_TOKENS = 64


def hash_token(token: str) -> str:
    """The hex SHA-256 digest of *token*, as stored in a token file."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


#: Every token this project makes starts with it: a token never starts with "-" (so
#: ``maka --token TOKEN`` is never read as an option) and is easy to spot in a leak scan.
TOKEN_PREFIX = "maka_"


def new_token() -> str:
    """A new random bearer token (256 bits after the prefix)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


class TokenFileError(Exception):
    """The token file cannot be read or is not in the documented format."""


def credentials_dir(data_dir: Path) -> Path:
    return data_dir / CREDENTIALS_DIR


def local_token_path(data_dir: Path) -> Path:
    return credentials_dir(data_dir) / LOCAL_TOKEN_NAME


def ensure_local_credential(data_dir: Path) -> str:
    """The local credential under *data_dir*, created (0600, directory 0700) if missing.

    Both services of a pair may start at once: an exclusive lock on the directory makes one
    of them write it and the other read it."""
    directory = credentials_dir(data_dir)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(directory, 0o700)
    path = directory / LOCAL_TOKEN_NAME
    fd = os.open(directory / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        token = _read_token(path)
        if token is None:
            token = new_token()
            tmp = directory / f".{LOCAL_TOKEN_NAME}.{os.getpid()}"
            out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            with os.fdopen(out, "w", encoding="utf-8") as handle:
                handle.write(token + "\n")
            os.replace(tmp, path)
        os.chmod(path, 0o600)
        os.chmod(directory / ".lock", 0o600)
        return token
    finally:
        os.close(fd)


def _read_token(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return text or None


@dataclass(frozen=True)
class _Entry:
    principal: Principal
    digest: bytes


@dataclass
class TokenTable:
    """The token file's contents: token digests and certificate names with their roles."""

    entries: tuple[_Entry, ...] = ()
    certificates: Mapping[str, frozenset[str]] = field(default_factory=dict)


def _roles(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
        raise TokenFileError(f"{where}: roles must be a list of strings")
    unknown = set(value) - ROLES
    if unknown:
        raise TokenFileError(f"{where}: unknown role(s) {sorted(unknown)} (known: {sorted(ROLES)})")
    return frozenset(value)


def parse_token_file(text: str, source: str) -> TokenTable:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise TokenFileError(f"{source}: not JSON: {error}") from None
    if not isinstance(data, dict):
        raise TokenFileError(f"{source}: expected an object with 'tokens' and 'certificates'")
    entries = []
    for index, item in enumerate(data.get("tokens", [])):
        where = f"{source}: tokens[{index}]"
        if not isinstance(item, dict):
            raise TokenFileError(f"{where}: expected an object")
        principal, digest = item.get("principal"), item.get("sha256")
        if not isinstance(principal, str) or not principal:
            raise TokenFileError(f"{where}: 'principal' must be a non-empty string")
        if not isinstance(digest, str) or len(digest) != 64:
            raise TokenFileError(f"{where}: 'sha256' must be a hex SHA-256 digest")
        try:
            raw = bytes.fromhex(digest)
        except ValueError:
            raise TokenFileError(f"{where}: 'sha256' must be a hex SHA-256 digest") from None
        entries.append(_Entry(Principal(principal, _roles(item.get("roles", []), where)), raw))
    certificates = data.get("certificates", {})
    if not isinstance(certificates, dict):
        raise TokenFileError(f"{source}: 'certificates' must map names to roles")
    certs = {
        str(name): _roles(roles, f"{source}: certificates[{name!r}]")
        for name, roles in certificates.items()
    }
    return TokenTable(tuple(entries), certs)


class _Watched:
    """A file re-read when its modification time changes."""

    def __init__(self, path: Path, parse: Callable[[str], Any], empty: Any) -> None:
        self.path = path
        self._parse = parse
        self._empty = empty
        self.value = empty
        self._stamp: tuple[int, int] | None = None
        self._checked = 0.0

    def load(self) -> None:
        """Read now (raise on an unreadable or malformed file)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self.value, self._stamp = self._empty, None
            return
        try:
            self.value = self._parse(self.path.read_text(encoding="utf-8"))
        except (ValueError, TypeError, RecursionError) as error:  # not UTF-8, nested too deep…
            raise TokenFileError(f"{self.path}: cannot be read: {error}") from None
        self._stamp = (stat.st_mtime_ns, stat.st_size)
        self._checked = time.monotonic()

    def refresh(self, *, force: bool = False) -> None:
        """Re-read if the file changed; a bad new version is logged and the old one kept."""
        now = time.monotonic()
        if not force and now - self._checked < _RELOAD_CHECK_SECONDS:
            return
        self._checked = now
        try:
            stat = self.path.stat()
            stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp and not force:
            return
        try:
            self.load()
        except (OSError, TokenFileError) as error:
            log.error("keeping the previous credentials: cannot reload %s: %s", self.path, error)
            return
        log.info("credentials reloaded from %s", self.path)


class Authenticator:
    """Maps a bearer token or a client certificate name to a principal."""

    def __init__(self, data_dir: Path, token_file: Path | None, *, local: bool = True) -> None:
        self.local_path = local_token_path(data_dir) if local else None
        self._local = (
            _Watched(self.local_path, lambda text: hash_token(text.strip()), None)
            if self.local_path is not None
            else None
        )
        self._file = (
            _Watched(token_file, lambda text: parse_token_file(text, str(token_file)), TokenTable())
            if token_file is not None
            else None
        )
        self._remembered: dict[str, Principal] = {}
        self._remembered_for: tuple[Any, Any] = (None, None)

    def open(self) -> None:
        """Create the local credential if needed and read everything (errors raise)."""
        if self.local_path is not None and self._local is not None:
            ensure_local_credential(self.local_path.parent.parent)
            self._local.load()
        if self._file is not None:
            if not self._file.path.exists():
                raise TokenFileError(f"token file {self._file.path} does not exist")
            self._file.load()

    def reload(self) -> None:
        """Re-read both files now (SIGHUP)."""
        for watched in (self._local, self._file):
            if watched is not None:
                watched.refresh(force=True)

    def _refresh(self) -> None:
        for watched in (self._local, self._file):
            if watched is not None:
                watched.refresh()

    def by_token(self, token: str) -> Principal | None:
        """The principal of *token*, or ``None``.

        A token that authenticated is remembered (at most :data:`REMEMBERED_TOKENS`, all
        forgotten whenever either credential file is re-read), so a known caller's call is
        one dictionary lookup: a SHA-256 costs several microseconds in a loaded server. An
        unknown token is never remembered, and is always hashed and compared with every
        entry in constant time. The lookup itself reveals nothing an attacker can use: it
        compares strings only after their keyed, per-process hashes matched."""
        self._refresh()
        current = (
            self._local.value if self._local is not None else None,
            self._file.value if self._file is not None else None,
        )
        if current[0] is not self._remembered_for[0] or current[1] is not self._remembered_for[1]:
            self._remembered, self._remembered_for = {}, current
        found = self._remembered.get(token)
        if found is None:
            found = self._match(token)
            if found is not None:
                if len(self._remembered) >= REMEMBERED_TOKENS:
                    self._remembered.clear()
                self._remembered[token] = found
        return found

    def _match(self, token: str) -> Principal | None:
        digest = hashlib.sha256(token.encode("utf-8")).digest()
        found: Principal | None = None
        # Every entry is compared (no early exit), each in constant time.
        local = self._local.value if self._local is not None else None
        if local is not None and hmac.compare_digest(digest, bytes.fromhex(local)):
            found = LOCAL_PRINCIPAL
        if self._file is not None:
            for entry in self._file.value.entries:
                if hmac.compare_digest(digest, entry.digest) and found is None:
                    found = entry.principal
        return found

    def by_certificate(self, name: str) -> Principal:
        self._refresh()
        certs = self._file.value.certificates if self._file is not None else {}
        return Principal(name, certs.get(name, frozenset({CLIENT})))


def bearer_token(metadata: Any) -> str | None:
    """The token of the ``authorization`` metadata (``""`` when it is not a bearer token)."""
    value = authorization(metadata)
    return _token_of(value) if value is not None else None


def authorization(metadata: Any) -> str | bytes | None:
    """The first ``authorization`` metadata value, as sent."""
    for key, value in metadata or ():
        if key == "authorization":
            return value  # type: ignore[no-any-return]
    return None


def _token_of(value: str | bytes) -> str:
    """The bearer token of an ``authorization`` value (``""`` when it is not one)."""
    text = value.decode() if isinstance(value, bytes) else str(value)
    scheme, _, token = text.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def certificate_name(context: Any) -> str | None:
    """The subject common name of the verified client certificate of *context*'s call."""
    auth = context.auth_context() if context is not None else {}
    for key in ("x509_common_name",):
        values = auth.get(key) or []
        if values:
            value = values[0]
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


class Gate:
    """Who is calling each method, and whether they may (see the module docstring): a step of
    every call's pipeline (:mod:`maka_runtime.common.pipeline`), on metadata only."""

    def __init__(self, authenticator: Authenticator, domain: str, *, mtls: bool = False) -> None:
        self.authenticator = authenticator
        self.domain = domain
        self.mtls = mtls
        #: ``authorization`` values that authenticated, and their tokens (parsed once).
        self._tokens: dict[str | bytes, str] = {}

    def _refusal(
        self,
        method: str,
        who: str,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        **metadata: str,
    ) -> grpc.Status:
        log.warning("refused %s for %s: %s", method, who, reason)
        return make_status(code, message, reason=reason, domain=self.domain, metadata=metadata)

    def decide(
        self, method: str, principal: Principal | None, presented: bool
    ) -> grpc.Status | None:
        """The refusal of *method* for *principal*, or ``None`` when it may be called."""
        if principal is None:
            message = (
                "unknown token"
                if presented
                else "no credential: send 'authorization: Bearer TOKEN' metadata "
                "(the local credential is DATA_DIR/credentials/local.token)"
            )
            return self._refusal(
                method, "anonymous", grpc.StatusCode.UNAUTHENTICATED, UNAUTHENTICATED, message
            )
        needs = METHOD_ROLES.get(method)
        if needs is not None and not principal.has_any(needs):
            wanted = " or ".join(sorted(needs))
            return self._refusal(
                method,
                principal.id,
                grpc.StatusCode.PERMISSION_DENIED,
                PERMISSION_DENIED,
                f"{method.rpartition('/')[2]} needs the {wanted} role; {principal.id!r} has "
                f"{', '.join(sorted(principal.roles)) or 'none'}",
                needs=",".join(sorted(needs)),
            )
        return None

    def principal_of(self, method: str, context: Any) -> Principal | grpc.Status | None:
        """The principal calling *method* in *context*'s call, its refusal, or ``None`` for a
        method open to everyone (health). Under mutual TLS a call without a token is the
        certificate's (the handshake has verified it against the client CA)."""
        if method.startswith(OPEN_PREFIXES):
            return None
        header = authorization(context.invocation_metadata())
        token = _token_of(header) if header is not None else None
        principal = self.authenticator.by_token(token) if token else None
        if principal is None and token is None and self.mtls:
            name = certificate_name(context)
            principal = self.authenticator.by_certificate(name) if name else None
        refusal = self.decide(method, principal, token is not None)
        if refusal is not None:
            return refusal
        if header is not None and token:
            if len(self._tokens) >= REMEMBERED_TOKENS:
                self._tokens.clear()
            self._tokens[header] = token
        return principal

    def for_method(self, method: str) -> Callable[[Any], Principal | grpc.Status | None]:
        """:meth:`principal_of` for *method*'s calls, with what depends on the method alone
        found once. A call whose ``authorization`` value was admitted before is checked with
        its token parsed then (the token itself is authenticated on every call,
        :meth:`Authenticator.by_token`); every other call, refusals included, takes
        :meth:`principal_of`."""
        if method.startswith(OPEN_PREFIXES):
            return _anyone
        needs = METHOD_ROLES.get(method)
        tokens, by_token, slow = self._tokens, self.authenticator.by_token, self.principal_of

        def principal_of(context: Any) -> Principal | grpc.Status | None:
            for key, value in context.invocation_metadata() or ():
                if key == "authorization":
                    token = tokens.get(value)
                    principal = by_token(token) if token is not None else None
                    if principal is not None and (needs is None or principal.has_any(needs)):
                        return principal
                    break
            return slow(method, context)

        return principal_of


def _anyone(context: Any) -> None:
    """The caller of a method open to everyone: nobody in particular."""
    return None
