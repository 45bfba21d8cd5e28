#!/bin/bash -e
# The release now lives in /opt/netprobe/releases/<version>; drop the staging copy.
rm -rf "${ROOTFS_DIR}/var/tmp/netprobe-release" "${ROOTFS_DIR}/var/tmp/netprobe-release-key"
