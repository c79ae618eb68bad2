#!/bin/sh
# Install what building and testing axl needs, from Debian's archive only.
# Runs as root on Debian 12; does nothing for packages that are already there.
set -eu
pkgs="build-essential cmake pkg-config opencl-c-headers libvulkan-dev libpci-dev zlib1g-dev pci.ids python3 python3-jsonschema g++ libmicrohttpd-dev libncurses-dev libgrpc-dev libprotobuf-c-dev protobuf-c-compiler"
[ "${1:-}" = "--test" ] && pkgs="$pkgs clang libclang-rt-14-dev pciutils hwloc-nox hyperfine prometheus groff-base ocl-icd-libopencl1 pocl-opencl-icd libvulkan1 mesa-vulkan-drivers python3-pytest python3-venv python3-pip python3-yaml strace podman runc uidmap mmdebstrap systemd python3-grpcio python3-protobuf protobuf-compiler"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
