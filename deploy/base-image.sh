#!/usr/bin/env bash
# Build the local base image (for machines that cannot pull one): a Debian bookworm minbase with
# Python, made by debootstrap from the apt mirror this machine already uses, then imported.
#   deploy/base-image.sh [IMAGE]     (default localhost/maka-base:bookworm; needs root)
# Kept when it exists already; MAKA_REBUILD_BASE=1 rebuilds it.
set -euo pipefail
cd "$(dirname "$0")"
. ./podman-env.sh
image="${1:-localhost/maka-base:bookworm}"
if [ "${MAKA_REBUILD_BASE:-0}" != 1 ] && podman image exists "$image"; then
  echo "base image $image: present"
  exit 0
fi
# The mirror is read from this machine's apt sources, never written down here.
mirror="$(apt-get indextargets --format '$(REPO_URI) $(ORIGIN) $(LABEL) $(CODENAME)' \
  | awk '$2 == "Debian" && $3 == "Debian" && $4 == "bookworm" { print $1; exit }')"
[ -n "$mirror" ] || { echo "no Debian bookworm source in the apt sources (run apt-get update)" >&2; exit 1; }
rootfs="$(mktemp -d "$MAKA_CONTAINERS_DIR/rootfs.XXXXXX")"
trap 'rm -rf "$rootfs"' EXIT
start=$SECONDS
debootstrap --variant=minbase \
  --include=python3,python3-venv,ca-certificates,git,bubblewrap \
  bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 \
  || { tail -n 20 "$rootfs.log" >&2; exit 1; }
rm -f "$rootfs.log"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | podman import --quiet - "$image" >/dev/null
echo "base image $image: built in $((SECONDS - start)) s"
