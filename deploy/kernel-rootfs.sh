#!/usr/bin/env bash
# Assemble the kernel image's root file system in ROOTFS: the Python interpreter that VENV was
# made with, its standard library, VENV itself and every shared library these load (found with
# ldd), a CA bundle, a passwd entry for the service user (10001) and its directories.
#   kernel-rootfs.sh VENV ROOTFS      (runs in the build stage of deploy/Containerfile)
set -euo pipefail
venv="$1" rootfs="$2"
python="$(readlink -f "$venv/bin/python")"
read -r stdlib platstdlib < <("$venv/bin/python" -c \
  'import sysconfig as s; p = s.get_paths(); print(p["stdlib"], p["platstdlib"])')
mkdir -p "$rootfs"
# The interpreter, the venv's links to it, and both trees (symlinks kept as they are).
cp -a --parents "$python" "$venv" "$stdlib" "$rootfs"
[ "$platstdlib" = "$stdlib" ] || cp -a --parents "$platstdlib" "$rootfs"
for link in "$(dirname "$python")"/python3*; do
  [ -L "$link" ] && cp -a --parents "$link" "$rootfs"
done
# What the interpreter needs neither to run the services nor to be small.
rm -rf "$rootfs$stdlib"/{test,idlelib,tkinter,turtledemo,ensurepip,lib2to3,pydoc_data}
# Every shared library the interpreter and the extension modules load, dereferenced, at the
# path the dynamic loader looks for it (also /lib64/ld-linux-*.so.2 itself).
find "$python" "$rootfs$stdlib" "$rootfs$venv" -name '*.so*' -o -path "$python" \
  | sed "s|^$rootfs||" | sort -u | while read -r object; do
      ldd "$object" 2>/dev/null | grep -o '/[^ ]*' || true
    done | sort -u | while read -r library; do
      [ -e "$rootfs$library" ] || cp -L --parents "$library" "$rootfs"
    done
# The loader's cache: libraries outside its built-in paths (/usr/local/lib) are found by it.
[ ! -e /etc/ld.so.cache ] || cp -L --parents /etc/ld.so.cache "$rootfs"
cp -L --parents /etc/ssl/certs/ca-certificates.crt "$rootfs"
printf 'root:x:0:0:root:/:/nonexistent\nmaka:x:10001:10001:maka:/data:/nonexistent\n' \
  >"$rootfs/etc/passwd"
printf 'root:x:0:\nmaka:x:10001:\n' >"$rootfs/etc/group"
install -d -m 1777 "$rootfs/tmp"
install -d -o 10001 -g 10001 -m 0700 "$rootfs/data"
install -d -o 10001 -g 10001 -m 0755 "$rootfs/workspace"
