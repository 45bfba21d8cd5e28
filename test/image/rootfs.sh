#!/usr/bin/env bash
# Prints the path of a cached, fully bootstrapped Debian root file system tarball, building it when missing.
# Usage: rootfs.sh <suite> <arch>     (cache: $NETPROBE_IMAGE_CACHE, default /var/cache/netprobe-test-image)
# The mirror is the one this machine's apt already uses, and apt's proxy (if any) is honoured.
set -euo pipefail
suite=$1 arch=$2
cache=${NETPROBE_IMAGE_CACHE:-/var/cache/netprobe-test-image}
here=$(cd "$(dirname "$0")" && pwd)
mirror=$("$here/apt-mirror.sh")
# Packages the install script needs before it can run apt itself (ca-certificates for https mirrors).
include=ca-certificates
key=$(printf '%s %s %s %s' "$suite" "$arch" "$mirror" "$include" | sha256sum | cut -c1-12)
tarball="$cache/debian-$suite-$arch-$key.tar"
if [ -f "$tarball" ]; then echo "$tarball"; exit 0; fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'umount -R "$work/root" 2>/dev/null || true; rm -rf "$work"' EXIT
proxy=$(apt-config shell P Acquire::http::Proxy | sed -n "s/^P='\(.*\)'$/\1/p")
[ -n "$proxy" ] && export http_proxy=$proxy
echo "debootstrap $suite $arch from $mirror${proxy:+ through $proxy} (one time; cached in $cache)" >&2
debootstrap --arch="$arch" --variant=minbase --include="$include" "$suite" "$work/root" "$mirror" >&2
chroot "$work/root" apt-get clean
tar -C "$work/root" --numeric-owner -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
echo "$tarball"
