#!/bin/bash -e
# Inside the image: the same install as on any Debian host (packages, user, release, units, mDNS,
# quiet SD card). No systemd runs here, so the service is enabled and starts on first boot.
key=()
if [ -f /var/tmp/netprobe-release-key ]; then key=(--release-key /var/tmp/netprobe-release-key); fi
/var/tmp/netprobe-release/scripts/install.sh --release /var/tmp/netprobe-release "${key[@]}"
