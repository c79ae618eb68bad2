#!/bin/sh
# CI only (.ci/run): the vendors' real user-space from Debian 12's archive on this machine,
# as a real accelerator node has it beside axl, and the vendors' own headers the ABI
# checks compile against (issue 33):
#  - NVIDIA 535 (libcuda1, libnvidia-ml1, nvidia-smi) and NVML's header (libnvidia-ml-dev
#    11.8), from contrib/non-free, enabled here in a sources file of its own;
#  - ROCm 5.2.3 (librocm-smi64-1, libamdhip64-5 and their -dev headers), Level Zero 1.8
#    (libze1, libze-dev) and Intel's OpenCL runtime (intel-opencl-icd), from main;
#  - cuda.h and cudaTypedefs.h of nvidia-cuda-dev 11.8 in /usr/local/include (on the
#    compiler's include path): only those two files are taken from the package's .deb,
#    which is downloaded (774 MB), unpacked and deleted; the package itself installs
#    2.8 GB and pulls every CUDA library in.
# scripts/test.sh never changes apt sources on a user's machine: it installs what main has
# (scripts/deps.sh --test) and says which real-library checks it could not run. The deploy
# tests make a root of their own with these packages (tests/deploy/vendor_root.py)
# wherever they run.
set -eu
pkgs="libcuda1 libnvidia-ml1 nvidia-smi libnvidia-ml-dev librocm-smi64-1 librocm-smi-dev libamdhip64-5 libamdhip64-dev libze1 libze-dev intel-opencl-icd"
# the CUDA headers: the version the ABI checks name (nvidia-cuda-dev 11.8 is bookworm's)
cuda_dev_version=11.8
cuda_headers="cuda.h cudaTypedefs.h"
inc=/usr/local/include

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
headers_there() {
	for h in $cuda_headers; do
		[ -s "$inc/$h" ] || return 1
	done
	grep -q "^#define CUDA_VERSION $(echo "$cuda_dev_version" | awk -F. '{printf "%d%03d", $1, $2 * 10}')\$" "$inc/cuda.h"
}
if [ -z "$missing" ] && headers_there; then
	exit 0
fi

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
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ -n "$missing" ]; then
	echo "installing the vendors' user-space:$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if ! headers_there; then
	version=$(apt-cache policy nvidia-cuda-dev | awk '/Candidate:/ {print $2}')
	case $version in
	"$cuda_dev_version".*) ;;
	*)
		echo "nvidia-cuda-dev: the archive offers '${version:-nothing}', not $cuda_dev_version" >&2
		exit 1
		;;
	esac
	tmp=$(mktemp -d /var/tmp/axl-cuda-dev.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	# apt's download user (_apt) writes into the folder: no "unsandboxed" note
	chmod 755 "$tmp"
	chown _apt "$tmp" 2>/dev/null || true
	echo "taking $cuda_headers from nvidia-cuda-dev $version's .deb (the package is not installed)"
	(cd "$tmp" && apt-get download -qq "nvidia-cuda-dev=$version" >/dev/null)
	deb=$(ls "$tmp"/nvidia-cuda-dev_*.deb)
	members=""
	for h in $cuda_headers; do
		members="$members ./usr/include/$h"
	done
	# shellcheck disable=SC2086
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" $members
	for h in $cuda_headers; do
		install -m 644 "$tmp/usr/include/$h" "$inc/$h"
	done
	rm -rf "$tmp"
	trap - EXIT
	headers_there || {
		echo "$inc/cuda.h is not CUDA $cuda_dev_version's" >&2
		exit 1
	}
fi
