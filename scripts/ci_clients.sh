#!/usr/bin/env bash
# CI step: the Node and Go clients installed the way their users install them, each from its
# built artifact, outside the repository, against a real service pair (tests/clients/
# test_packages.py, marker `packages`): npm pack -> npm install of the tarball in an empty
# directory -> the client scenario and a tsc --noEmit of a TypeScript consumer; the Go module
# published at a version into a file-system GOPROXY -> the example built in a module of its own
# that requires it by path and version -> run. Needs node, npm and go, and the npm registry and
# the Go module proxy for the dependencies. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in node npm go; do
  command -v "$tool" >/dev/null || { echo "ci_clients: $tool is required" >&2; exit 1; }
done
start=$SECONDS
MAKA_REQUIRE_TOOLCHAINS=1 "${MAKA_VENV:-.venv}/bin/pytest" -m packages tests/clients/test_packages.py \
  -p no:cacheprovider "$@"
echo "== client packages: $((SECONDS - start)) s"
