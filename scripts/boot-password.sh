#!/bin/sh
# Mirrors netprobe's one-time admin password onto the boot partition, so that whoever holds the SD card
# can read it from any computer; removes the copy once setup has retired the password.
# Usage: boot-password.sh SOURCE TARGET [OWNER]
#   SOURCE  the service's password file (/var/lib/netprobe/initial-admin-password)
#   TARGET  the copy (/boot/firmware/netprobe-admin-password.txt); nothing happens when its directory is missing
#   OWNER   the user that must own SOURCE (default netprobe)
# Run as root by netprobe-boot-password.service whenever SOURCE appears or disappears. The service user
# cannot write the boot partition (FAT, root's), and must not be able to: it holds the kernel and its
# command line. SOURCE is the service user's file, so it is opened first and then checked through the
# open descriptor: a regular file that OWNER owns, holding one password, or nothing is copied.
set -eu
src=$1 dst=$2 owner=${3:-netprobe}
dir=$(dirname "$dst")
[ -d "$dir" ] || { echo "no $dir: nothing to do"; exit 0; }

if [ ! -e "$src" ] && [ ! -L "$src" ]; then
  if [ -e "$dst" ]; then rm -f "$dst"; echo "setup is done: removed $dst"; fi
  exit 0
fi
# -f first so that opening cannot block on a FIFO; the checks that matter are made on the open file.
if [ ! -f "$src" ] || [ -L "$src" ]; then echo "refusing $src: not a regular file" >&2; exit 1; fi
exec 3<"$src"
info=$(stat -L -c '%U %s' "/proc/$$/fd/3")
file_owner=${info% *} size=${info##* }
[ "$file_owner" = "$owner" ] || { echo "refusing $src: owned by $file_owner, not $owner" >&2; exit 1; }
[ "$size" -le 256 ] || { echo "refusing $src: $size bytes is not a password" >&2; exit 1; }
IFS= read -r password <&3 || true
exec 3<&-
case $password in
  '' | *[!A-Za-z0-9]*) echo "refusing $src: not a one-time password" >&2; exit 1 ;;
esac

tmp="$dst.tmp"
cat >"$tmp" <<TEXT
netprobe: one-time administrator password

  user:     admin
  password: $password

Open http://netprobe.local:8080/ (or http://<the probe's address>:8080/) and enter the password
as the setup code of the setup wizard, which creates your own administrator. This file is deleted
once that is done.
TEXT
if cmp -s "$tmp" "$dst"; then rm -f "$tmp"; exit 0; fi
mv -f "$tmp" "$dst"
sync "$dst" 2>/dev/null || sync
echo "wrote $dst"
