#!/bin/sh
# Install what building and testing axl needs, from Debian's archive only.
# Runs as root on Debian 12; does nothing for packages that are already there.
# --test also installs the vendors' user-space that Debian's main component has (ROCm SMI
# and HIP 5.2.3, Level Zero 1.8, their headers, Intel's OpenCL ICD): the real-library checks
# run beside it. NVIDIA's is in non-free, which this script never enables (it changes no
# apt sources): CI installs it (scripts/vendor-userspace.sh), and scripts/test.sh says
# which checks ran without it. A vendor package this architecture's archive does not have
# is left out, and said.
set -eu
pkgs="build-essential cmake pkg-config opencl-c-headers libvulkan-dev libpci-dev zlib1g-dev pci.ids python3 python3-jsonschema g++ libmicrohttpd-dev libncurses-dev libgrpc-dev libprotobuf-c-dev protobuf-c-compiler libcurl4-openssl-dev"
[ "${1:-}" = "--test" ] && pkgs="$pkgs clang libclang-rt-14-dev pciutils hwloc-nox hyperfine prometheus groff-base ocl-icd-libopencl1 pocl-opencl-icd libvulkan1 mesa-vulkan-drivers python3-pytest python3-pytest-asyncio python3-numpy python3-venv python3-pip python3-yaml strace podman runc uidmap mmdebstrap systemd python3-grpcio python3-protobuf protobuf-compiler"
vendor_main="librocm-smi64-1 librocm-smi-dev libamdhip64-5 libamdhip64-dev libze1 libze-dev intel-opencl-icd"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
vendor_missing=""
if [ "${1:-}" = "--test" ]; then
	for p in $vendor_main; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || vendor_missing="$vendor_missing $p"
	done
fi
if [ -n "$missing$vendor_missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
fi
if [ -n "$missing" ]; then
	echo "installing:$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ -n "$vendor_missing" ]; then
	have=""
	for p in $vendor_missing; do
		case $(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ {print $2}') in
		"" | "(none)") echo "note: $p is not in this machine's archive ($(dpkg --print-architecture)): left out" ;;
		*) have="$have $p" ;;
		esac
	done
	if [ -n "$have" ]; then
		echo "installing the vendors' user-space from main:$have"
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $have >/dev/null
	fi
fi
