#!/usr/bin/env bash
# Prints the Debian mirror this machine's apt uses for the main archive (not the security archive),
# read from deb822 .sources files first, then the one-line sources.list format.
set -euo pipefail
shopt -s nullglob
for f in /etc/apt/sources.list.d/*.sources; do
  awk 'BEGIN { RS="" }
       /(^|\n)Types:[^\n]*deb([ \t]|\n|$)/ && !/(^|\n)Enabled:[ \t]*no/ {
         if (match($0, /(^|\n)URIs:[ \t]*[^ \t\n]+/)) {
           u = substr($0, RSTART, RLENGTH); sub(/^\n?URIs:[ \t]*/, "", u)
           if (u !~ /security/ && u ~ /debian/) { print u; exit }
         }
       }' "$f"
done | head -n1 | grep . && exit 0
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }' "$f"
done | grep -v security | grep debian | head -n1 | grep . && exit 0
echo "no Debian mirror found in /etc/apt/sources.list*" >&2
exit 1
