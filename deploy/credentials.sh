#!/usr/bin/env bash
# One-shot credentials and TLS for the compose stack (never part of an image):
#   deploy/credentials.sh [DIR]        (default deploy/secrets; refuses to overwrite)
# Makes in DIR, with openssl:
#   ca.pem                      the stack's own CA (its key is deleted once it has signed)
#   kernel/    tls.crt tls.key  the kernel's certificate (names kernel, localhost, 127.0.0.1)
#              link.crt link.key  the client certificate of its link to the resource service
#                               (common name kernel-link)
#              tokens.json      the kernel's token file: the digest of the client token below
#   resource/  tls.crt tls.key  the resource service's certificate (names resource, localhost,
#                               127.0.0.1); tokens.json gives kernel-link the roles kernel and
#                               operator (the shutdown cascade), and the service's own
#                               certificate (an operator's `exec resource maka …`) admin
#   client/    token ca.pem     what a client on the host needs: MAKA_TOKEN and MAKA_TLS_CA
# Each service directory is mounted read-only into its container; as root the script gives it
# to the containers' user (uid 10001) with modes 0700/0600; MAKA_SECRETS_OWNER=UID:GID changes
# that owner (rootless podman: run it under `podman unshare`). MAKA_KERNEL_SAN and
# MAKA_RESOURCE_SAN add names to a certificate (e.g. DNS:kernel.example,IP:192.0.2.1) for
# services that run on hosts of their own.
set -euo pipefail
dir="${1:-$(dirname "$0")/secrets}"
owner="${MAKA_SECRETS_OWNER:-10001:10001}"
days="${MAKA_CERT_DAYS:-825}"
if [ -e "$dir/ca.pem" ]; then
  echo "credentials.sh: $dir already holds credentials; remove it to make new ones" >&2
  exit 1
fi
umask 077
mkdir -p "$dir/kernel" "$dir/resource" "$dir/client"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days "$days" \
  -subj "/CN=maka stack CA" -keyout "$work/ca.key" -out "$dir/ca.pem" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  2>/dev/null

issue() { # issue NAME SAN OUT_CERT OUT_KEY: a certificate for server and client use
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -subj "/CN=$1" \
    -keyout "$4" -out "$work/$1.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n%s\n%s\n' \
    'extendedKeyUsage=serverAuth,clientAuth' "subjectAltName=$2" >"$work/$1.ext"
  openssl x509 -req -in "$work/$1.csr" -CA "$dir/ca.pem" -CAkey "$work/ca.key" \
    -CAcreateserial -CAserial "$work/ca.srl" -days "$days" -extfile "$work/$1.ext" -out "$3" 2>/dev/null
}
issue kernel "DNS:kernel,DNS:localhost,IP:127.0.0.1${MAKA_KERNEL_SAN:+,$MAKA_KERNEL_SAN}" \
  "$dir/kernel/tls.crt" "$dir/kernel/tls.key"
issue resource "DNS:resource,DNS:localhost,IP:127.0.0.1${MAKA_RESOURCE_SAN:+,$MAKA_RESOURCE_SAN}" \
  "$dir/resource/tls.crt" "$dir/resource/tls.key"
issue kernel-link "DNS:kernel-link" "$dir/kernel/link.crt" "$dir/kernel/link.key"

token="maka_$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n')"
digest="$(printf %s "$token" | openssl dgst -sha256 -r | cut -d' ' -f1)"
printf '%s\n' "$token" >"$dir/client/token"
printf '{"tokens": [{"principal": "user", "roles": ["client"], "sha256": "%s"}]}\n' "$digest" \
  >"$dir/kernel/tokens.json"
# An operator inside the resource container (`exec resource maka attach REF`) presents the
# service's own certificate: admin there, since whoever can exec into it holds that key anyway.
printf '{"tokens": [], "certificates": {"kernel-link": ["kernel", "operator"], "resource": ["admin"]}}\n' \
  >"$dir/resource/tokens.json"
for d in kernel resource client; do cp "$dir/ca.pem" "$dir/$d/ca.pem"; done
chmod 0644 "$dir/ca.pem" "$dir/client/ca.pem"
if [ "$(id -u)" = 0 ]; then
  chown -R "$owner" "$dir/kernel" "$dir/resource"
fi
echo "credentials in $dir: client token $dir/client/token, CA $dir/client/ca.pem"
