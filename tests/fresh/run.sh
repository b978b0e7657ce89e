#!/bin/sh
# Proves the README's two commands on a fresh Debian 12: builds a minimal
# bookworm root with debootstrap, puts a clean clone of this repository's
# committed HEAD in it, runs `make check` there, then `make run` in the
# background and asks it for /healthz. Needs root (debootstrap, chroot, mount).
#
#   sh tests/fresh/run.sh            (or: make check-fresh)
#
# FRESH_DIR=DIR puts the root there (default: a new directory under
# /var/tmp); FRESH_KEEP=1 keeps it afterwards; FRESH_MIRROR=URL overrides
# the Debian mirror (default: the host's, from /etc/apt/sources.list*).
# Everything it mounts is unmounted on every exit, failures included.
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh: needs root (debootstrap, chroot, mount)" >&2; exit 2; }

work=${FRESH_DIR:-$(mktemp -d /var/tmp/llm-speed-fresh.XXXXXX)}
root=$work/root
mounted=""      # mount points, newest first
server_pgid=""

log() { printf 'fresh: %s\n' "$*"; }

cleanup() {
	status=$?
	trap - EXIT INT TERM
	if [ -n "$server_pgid" ]; then
		kill -TERM -- "-$server_pgid" 2>/dev/null || true
		i=0
		while kill -0 -- "-$server_pgid" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
		kill -KILL -- "-$server_pgid" 2>/dev/null || true
	fi
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "fresh: could not unmount $m" >&2
	done
	if [ "${FRESH_KEEP:-0}" = 1 ]; then
		log "kept $work"
	elif grep -q " $work/" /proc/mounts; then
		echo "fresh: something is still mounted under $work; not removing it" >&2
	else
		rm -rf "$work"
	fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The host's mirror: the first Debian URI of its apt sources that is not the
# security archive.
host_mirror() {
	cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list 2>/dev/null |
		grep -Eo '(https?://[^ ]+)' | grep -v -e security -e snapshot | head -n 1
}
mirror=${FRESH_MIRROR:-$(host_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null 2>&1; then
	log "installing debootstrap"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi

start=$(date +%s)
log "debootstrap bookworm from $mirror into $root"
mkdir -p "$root"
# minbase plus what a user has before typing the two commands: git (they
# cloned the repository), make, and the CA store.
debootstrap --variant=minbase --include=git,make,ca-certificates bookworm "$root" "$mirror" \
	> "$work/debootstrap.log" 2>&1 || { tail -n 30 "$work/debootstrap.log"; exit 1; }

# The host's trust settings: its local CAs (as behind a proxy with its own
# authority) become the root's, and survive update-ca-certificates there.
mkdir -p "$root/usr/local/share/ca-certificates/host"
if [ -d /usr/local/share/ca-certificates ]; then
	cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/host/"
fi
cp /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/ca-certificates/host/host-bundle.crt"
# apt's proxy settings, if the host has any.
for f in /etc/apt/apt.conf.d/*; do
	[ -f "$f" ] && grep -qi 'proxy' "$f" && cp "$f" "$root/etc/apt/apt.conf.d/"
done
cp /etc/resolv.conf "$root/etc/resolv.conf"

for m in proc sys dev dev/pts dev/shm; do mkdir -p "$root/$m"; done
mount -t proc proc "$root/proc";         mounted="$root/proc $mounted"
mount -t sysfs sysfs "$root/sys";        mounted="$root/sys $mounted"
mount --bind /dev "$root/dev";           mounted="$root/dev $mounted"
mount --bind /dev/pts "$root/dev/pts";   mounted="$root/dev/pts $mounted"
mount -t tmpfs -o mode=1777 shm "$root/dev/shm"; mounted="$root/dev/shm $mounted"

log "cloning $(git -C "$repo" rev-parse --short HEAD) (committed HEAD) into /src/llm-speed"
git clone -q --no-local "$repo" "$root/src/llm-speed"

# Runs a command in the root with a clean environment (plus the host's proxy
# settings, if any).
in_root() {
	env -i HOME=/root LANG=C.UTF-8 TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
		${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} \
		${HTTP_PROXY:+HTTP_PROXY=$HTTP_PROXY} ${HTTPS_PROXY:+HTTPS_PROXY=$HTTPS_PROXY} \
		${no_proxy:+no_proxy=$no_proxy} ${NO_PROXY:+NO_PROXY=$NO_PROXY} \
		chroot "$root" "$@"
}
in_root update-ca-certificates > /dev/null 2>&1

t0=$(date +%s)
log "make check in the root (log: $work/check.log)"
if ! in_root sh -c 'cd /src/llm-speed && make check' > "$work/check.log" 2>&1; then
	tail -n 60 "$work/check.log"
	FRESH_KEEP=1
	log "make check failed after $(( $(date +%s) - t0 ))s"
	exit 1
fi
t1=$(date +%s)
tail -n 1 "$work/check.log"
node_version=$(in_root node --version)
log "node in the root: $node_version ($(in_root sh -c 'dpkg-query -W -f="\${Version}" nodejs'))"
case "$node_version" in
v18.*) ;;
*) echo "fresh: expected Debian 12's Node.js 18, found $node_version" >&2; exit 1 ;;
esac

# make run, on a free port (the host may already serve 8080).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log "make run LISTEN=127.0.0.1:$port in the background"
setsid sh -c 'exec "$@" > "'"$work"'/run.log" 2>&1' sh \
	env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	chroot "$root" sh -c "cd /src/llm-speed && exec make run LISTEN=127.0.0.1:$port" &
server_pgid=$!
ok=0
i=0
while [ $i -lt 120 ]; do
	if curl -fsS "http://127.0.0.1:$port/healthz" > "$work/healthz" 2>/dev/null; then ok=1; break; fi
	kill -0 "$server_pgid" 2>/dev/null || break
	sleep 1
	i=$((i + 1))
done
if [ $ok -ne 1 ]; then
	cat "$work/run.log"
	log "make run did not answer /healthz"
	exit 1
fi
log "/healthz answered: $(head -c 200 "$work/healthz")"
end=$(date +%s)
log "passed: debootstrap and set-up $((t0 - start))s, make check $((t1 - t0))s, total $((end - start))s"
