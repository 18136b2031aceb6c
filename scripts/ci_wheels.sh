#!/usr/bin/env bash
# CI: the two Python distributions as a user gets them, from their built wheels.
#   1. build both wheels (clients/python: maka-runtime-client; the root: maka-runtime);
#   2. a fresh venv outside the source tree with the client wheel alone: no server package is
#      importable, `maka --help` works, `maka up` says what to install;
#   3. another fresh venv with the server wheel, its client pulled from the built wheel
#      (--find-links), and the README's first turn from there: the pair started from the
#      installed entry points (maka-resource, maka-kernel) with a temporary data directory and
#      HOME, `maka new .`, `maka turn $S 'ls -la' --approve once`, then `maka shutdown
#      --kernel-only` (its cascade stops the resource service) and both services exit 0.
#   PYTHON  builds the wheels and the venvs (default: .venv/bin/python, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-}"
[ -n "$python" ] || { [ -x .venv/bin/python ] && python=.venv/bin/python; } || python=python3
case "$python" in
  /*) ;;
  */*) python="$PWD/$python" ;;
  *) python="$(command -v "$python")" ;;
esac
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
start=$SECONDS
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "ci_wheels: $*" >&2
  for log in "$work"/*.log; do [ -f "$log" ] && { echo "--- $log" >&2; cat "$log" >&2; }; done
  exit 1
}

echo "== wheels"
dist="$work/dist"
# setuptools builds in the source tree; a build/ left from earlier would lend its stale modules.
rm -rf build clients/python/build
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$dist" ./clients/python .
"$python" - "$dist" <<'EOF'
import sys, zipfile
from pathlib import Path

dist = Path(sys.argv[1])


def contents(pattern: str) -> tuple[list[str], set[str]]:
    [wheel] = dist.glob(pattern)
    names = zipfile.ZipFile(wheel).namelist()
    return names, {n.split("/")[0] for n in names if ".dist-info/" not in n}


names, top = contents("maka_runtime_client-*.whl")
assert top == {"maka_runtime_client", "maka_runtime_proto"}, top
for name in ("maka_runtime_proto/descriptors.binpb", "maka_runtime_proto/kernel/v1/kernel_pb2.pyi",
             "maka_runtime_proto/py.typed", "maka_runtime_client/py.typed"):
    assert name in names, f"the client wheel lacks {name}"
names, top = contents("maka_runtime-0*.whl")
assert top == {"maka_runtime"}, top
native = [n for n in names if n.startswith("maka_runtime/resource/core/process/_clone.")]
assert [n for n in native if n.endswith(".so")], f"the server wheel lacks the native spawner: {native}"
assert not [n for n in names if n.endswith(".c")], "the server wheel carries C sources"
print("client wheel:", len(names), "files; server wheel: maka_runtime only, with _clone")
EOF
ls "$dist"

# Outside the source tree, with nothing of it on the path.
cd "$work"
unset PYTHONPATH
for name in $(env | sed -n 's/^\(MAKA_[A-Z_]*\)=.*/\1/p'); do unset "$name"; done

echo "== the client distribution alone"
client="$work/client-venv"
"$python" -m venv "$client"
"$client/bin/pip" install --quiet "$dist"/maka_runtime_client-*.whl
"$client/bin/pip" check
"$client/bin/python" - <<'EOF'
import importlib.util
import sys

for name in ("maka_runtime", "kernel_service", "resource_service", "maka_common", "maka_client",
             "maka"):
    assert importlib.util.find_spec(name) is None, f"{name} is importable from the client alone"
import maka_runtime_client
import maka_runtime_client.aio
import maka_runtime_client.sync
import maka_runtime_proto.kernel.v1.kernel_pb2_grpc
import maka_runtime_proto.resource.v1.resource_pb2_grpc

assert maka_runtime_client.__file__.startswith(sys.prefix), maka_runtime_client.__file__
print("no server package importable; the SDK and the generated code import from the venv")
EOF
"$client/bin/maka" --help >/dev/null
for program in maka-kernel maka-resource; do
  [ ! -e "$client/bin/$program" ] || fail "the client distribution installed $program"
done
if up="$("$client/bin/maka" --kernel 127.0.0.1:0 --resource 127.0.0.1:0 up 2>&1)"; then
  fail "maka up without the servers succeeded: $up"
fi
grep -q "pip install maka-runtime" <<<"$up" || fail "maka up did not say what to install: $up"
echo "maka --help works; maka up says: $up"

echo "== the server distribution (its client from the built wheel)"
server="$work/server-venv"
"$python" -m venv "$server"
"$server/bin/pip" install --find-links "$dist" "$dist"/maka_runtime-0*.whl >"$work/pip.log" \
  || fail "installing the server wheel failed"
grep -q "Processing .*/dist/maka_runtime_client-" "$work/pip.log" \
  || fail "maka-runtime-client did not come from the built wheel"
"$server/bin/pip" check

echo "== the README's first turn, from the installed entry points"
export HOME="$work/home" MAKA_DATA_DIR="$work/data"
mkdir -p "$HOME" "$work/project"
echo "first turn" >"$work/project/hello.txt"
listening() {  # the address a service logs once it listens (its log is the sentinel)
  local log="$1" pid="$2" address=""
  for _ in $(seq 600); do
    address="$(sed -n 's/.* listening on \([0-9.]*:[0-9]*\).*/\1/p' "$log" | head -n 1)"
    [ -n "$address" ] && { echo "$address"; return 0; }
    kill -0 "$pid" 2>/dev/null || fail "$(basename "$log" .log) exited before listening"
    sleep 0.1
  done
  fail "$(basename "$log" .log) did not listen within a minute"
}
"$server/bin/maka-resource" --listen 127.0.0.1:0 --data-dir "$MAKA_DATA_DIR" \
  2>"$work/resource.log" &
resource_pid=$!
pids+=("$resource_pid")
resource="$(listening "$work/resource.log" "$resource_pid")"
"$server/bin/maka-kernel" --listen 127.0.0.1:0 --resource-address "$resource" \
  --data-dir "$MAKA_DATA_DIR" 2>"$work/kernel.log" &
kernel_pid=$!
pids+=("$kernel_pid")
kernel="$(listening "$work/kernel.log" "$kernel_pid")"
maka=("$server/bin/maka" --kernel "$kernel" --resource "$resource")
cd "$work/project"
session="$("${maka[@]}" new .)" || fail "maka new failed"
turn="$("${maka[@]}" turn "$session" 'ls -la' --approve once)" || fail "the turn failed: $turn"
echo "$turn"
grep -q "hello.txt" <<<"$turn" || fail "the turn's output does not list hello.txt"
grep -q "exit 0" <<<"$turn" || fail "the turn's tool call did not exit 0"
"${maka[@]}" shutdown --kernel-only >/dev/null  # the kernel shuts the resource service down
wait "$kernel_pid" || fail "maka-kernel exited $?"
wait "$resource_pid" || fail "maka-resource exited $?"
pids=()
echo "== wheels step: $((SECONDS - start)) s"
