#!/bin/bash -e
# pi-gen: start from the previous stage's (stage2, Lite) root file system.
if [ ! -d "${ROOTFS_DIR}" ]; then
	copy_previous
fi
