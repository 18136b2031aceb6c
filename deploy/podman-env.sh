# Sourced by deploy/images.sh and deploy/stack-test.sh: podman's storage and configuration in a
# work directory of their own, so the machine's defaults stay untouched.
#   MAKA_CONTAINERS_DIR  the work directory (default ~/.cache/maka-runtime/containers)
# Runtime runc: crun fails where cgroups run in hybrid mode. The default ulimits are set to the
# hard limits in force, since a root without CAP_SYS_RESOURCE cannot raise them.
MAKA_CONTAINERS_DIR="${MAKA_CONTAINERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/maka-runtime/containers}"
mkdir -p "$MAKA_CONTAINERS_DIR/storage" "$MAKA_CONTAINERS_DIR/run" "$MAKA_CONTAINERS_DIR/networks"
cat >"$MAKA_CONTAINERS_DIR/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$MAKA_CONTAINERS_DIR/storage"
runroot = "$MAKA_CONTAINERS_DIR/run"
CONF
_maka_nofile="$(ulimit -Hn)"
cat >"$MAKA_CONTAINERS_DIR/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$_maka_nofile:$_maka_nofile", "nproc=8192:8192"]

[network]
network_config_dir = "$MAKA_CONTAINERS_DIR/networks"

[engine]
runtime = "runc"
CONF
unset _maka_nofile
export MAKA_CONTAINERS_DIR
export CONTAINERS_STORAGE_CONF="$MAKA_CONTAINERS_DIR/storage.conf"
export CONTAINERS_CONF="$MAKA_CONTAINERS_DIR/containers.conf"
