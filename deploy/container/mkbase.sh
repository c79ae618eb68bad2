#!/bin/sh
# Make the Debian 12 base image of deploy/container/Containerfile without a registry:
# mmdebstrap builds a minimal bookworm root from Debian's mirror and `podman import`
# turns it into localhost/axl-base:bookworm. Does nothing when the image exists
# (--force makes it again). Needs root (or mmdebstrap --mode=unshare) and the packages
# mmdebstrap and podman.
#
# usage: mkbase.sh [--force] [IMAGE] [MIRROR]
set -eu
force=0
[ "${1:-}" = "--force" ] && { force=1; shift; }
image=${1:-localhost/axl-base:bookworm}
mirror=${2:-http://deb.debian.org/debian}
if [ "$force" = 0 ] && podman image exists "$image"; then
	echo "$image exists"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# minbase: essential packages + apt; no documentation, manual pages or translations
mmdebstrap --quiet --variant=minbase \
	--aptopt='Acquire::Languages "none"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	bookworm "$tmp/root.tar" \
	"deb $mirror bookworm main" \
	"deb $mirror bookworm-updates main" \
	"deb ${mirror%/debian}/debian-security bookworm-security main"
podman import --quiet --change 'CMD ["/bin/bash"]' "$tmp/root.tar" "$image" >/dev/null
echo "imported $image ($(du -h "$tmp/root.tar" | cut -f1) tar)"
