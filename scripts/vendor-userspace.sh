#!/bin/sh
# CI only (.ci/run): the vendors' real user-space from Debian 12's archive on this machine,
# as a real accelerator node has it beside axl: NVIDIA 535 (libcuda1, libnvidia-ml1,
# nvidia-smi; contrib/non-free, enabled here in a sources file of its own), ROCm 5.2.3
# (librocm-smi64-1, libamdhip64-5) and Level Zero (libze1). scripts/test.sh never changes
# apt sources on a user's machine; the deploy tests make a root of their own with these
# packages (tests/deploy/vendor_root.py) wherever they run.
set -eu
pkgs="libcuda1 libnvidia-ml1 nvidia-smi librocm-smi64-1 libamdhip64-5 libze1"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
list=/etc/apt/sources.list.d/axl-ci-nonfree.sources
if [ ! -e "$list" ]; then
	cat >"$list" <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
fi
echo "installing the vendors' user-space:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
