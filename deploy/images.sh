#!/usr/bin/env bash
# Build both images (./dev images): the wheelhouse on the host, then the kernel and resource
# targets of deploy/Containerfile, tagged localhost/maka-kernel:latest and
# localhost/maka-resource:latest. Prints each build's time and each image's size.
#   MAKA_BASE_IMAGE  base to build FROM (default: the local base of deploy/base-image.sh,
#                    built when missing; any Debian image with python3 and python3-venv works)
#   PYTHON           the Python that builds the wheelhouse (default .venv/bin/python)
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/podman-env.sh
python="${PYTHON:-.venv/bin/python}"
base="${MAKA_BASE_IMAGE:-}"
if [ -z "$base" ]; then
  base=localhost/maka-base:bookworm
  deploy/base-image.sh "$base"
fi
start=$SECONDS
rm -f deploy/wheelhouse/*.whl
# Both distributions: the servers (.) and the client they depend on (clients/python).
"$python" -m pip wheel --quiet --disable-pip-version-check --wheel-dir deploy/wheelhouse \
  ./clients/python .
echo "wheelhouse: $(find deploy/wheelhouse -name '*.whl' | wc -l) wheels in $((SECONDS - start)) s"
for target in resource kernel; do
  start=$SECONDS
  podman build --quiet --layers --format docker --file deploy/Containerfile --target "$target" \
    --build-arg BASE_IMAGE="$base" --tag "localhost/maka-$target:latest" . >/dev/null
  size="$(podman image inspect --format '{{.Size}}' "localhost/maka-$target:latest")"
  echo "image localhost/maka-$target:latest: built in $((SECONDS - start)) s," \
    "$((size / 1000000)) MB"
done
