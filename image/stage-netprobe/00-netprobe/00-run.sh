#!/bin/bash -e
# Outside the chroot: put the release tree (./build.sh bundle, passed as NETPROBE_RELEASE) into the image
# where the next step's install can read it. Not under /tmp: pi-gen mounts a tmpfs there in the chroot.
: "${NETPROBE_RELEASE:?set NETPROBE_RELEASE to the release tree made by ./build.sh bundle}"
rm -rf "${ROOTFS_DIR}/var/tmp/netprobe-release"
mkdir -p "${ROOTFS_DIR}/var/tmp/netprobe-release"
cp -a "${NETPROBE_RELEASE}/." "${ROOTFS_DIR}/var/tmp/netprobe-release/"
# The public key self-update pins (docs/update.md), when the build names one (NETPROBE_RELEASE_KEY).
rm -f "${ROOTFS_DIR}/var/tmp/netprobe-release-key"
if [ -n "${NETPROBE_RELEASE_KEY:-}" ]; then cp "${NETPROBE_RELEASE_KEY}" "${ROOTFS_DIR}/var/tmp/netprobe-release-key"; fi
