#!/bin/bash -e
# Inside the image: the same install as on any Debian host (packages, user, release, units, mDNS,
# quiet SD card). No systemd runs here, so the service is enabled and starts on first boot.
/var/tmp/netprobe-release/scripts/install.sh --release /var/tmp/netprobe-release
