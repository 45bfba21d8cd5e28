#!/bin/sh
# Copies ZeroTier One's auth token to where zerotier-cli, run by the netprobe service, looks for it
# ($HOME/.zeroTierOneAuthToken), mode 0600. Byte for byte: zerotier-cli sends the file's content as it is.
# Usage: zerotier-token.sh SOURCE TARGET
#   SOURCE  the token as systemd hands it over ($CREDENTIALS_DIRECTORY/zerotier-authtoken)
#   TARGET  /var/lib/netprobe/.zeroTierOneAuthToken
# Run as the service user by netprobe-zerotier-token.service (never as root: TARGET's directory is the
# service user's). Writes a new file beside TARGET and renames it over, so the service never reads half a token.
set -eu
src=$1 dst=$2
umask 077
[ -s "$src" ] || { echo "no token in $src: nothing to do" >&2; exit 0; }
size=$(wc -c <"$src")
[ "$size" -le 256 ] || { echo "refusing $src: $size bytes is not a ZeroTier auth token" >&2; exit 1; }
if [ -f "$dst" ] && cmp -s "$src" "$dst"; then exit 0; fi
tmp=$(mktemp "$dst.XXXXXX")
trap 'rm -f "$tmp"' EXIT
cat "$src" >"$tmp"
chmod 0600 "$tmp"
mv -f "$tmp" "$dst"
trap - EXIT
echo "wrote $dst"
