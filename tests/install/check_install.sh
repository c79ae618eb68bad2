#!/bin/sh
# install.prefix: `cmake --install BUILD --prefix TMP`, then use what was installed as a
# user would (README.md, Install):
#  - every file where the documentation says: libaxl.so/.a, headers, libaxl.pc, the CMake
#    package, every schema/*.json, the manual page (its content: install.manpage),
#    libaccelerator_axl.so + metadata.yaml;
#  - libaxl.pc: its prefix is TMP, what it links is what libaxl links (libm; not libpci
#    nor zlib, which libaxl loads with dlopen);
#  - tests/install/hello.c built with only `pkg-config --cflags --libs libaxl`, and with
#    find_package(axl) (tests/install/consumer: axl::axl and axl::axl_static), each run on
#    the simulated 2 x H100 node and loading the installed library;
#  - find_package(axl M.N) refused for a newer N or another major version M;
#  - the installed axl runs; the installed provider loads with dlopen and answers.
# With a sanitizer build (AXL_SANITIZE), the programs are built with the same
# -fsanitize flags, as a user of that library would have to.
#
#   check_install.sh --build DIR --source DIR --work DIR --cc CC --cmake CMAKE
#       --libdir D --includedir D --bindir D --datadir D --mandir D
#       [--sanitize LIST] [--pciids ON|OFF] [--tf-host EXE]
set -eu

build='' source='' work='' cc=cc cmake=cmake libdir='' includedir='' bindir='' datadir='' mandir=''
sanitize='' pciids=ON tfhost=''
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2 ;;
	--source) source=$2 ;;
	--work) work=$2 ;;
	--cc) cc=$2 ;;
	--cmake) cmake=$2 ;;
	--libdir) libdir=$2 ;;
	--includedir) includedir=$2 ;;
	--bindir) bindir=$2 ;;
	--datadir) datadir=$2 ;;
	--mandir) mandir=$2 ;;
	--sanitize) sanitize=$2 ;;
	--pciids) pciids=$2 ;;
	--tf-host) tfhost=$2 ;;
	*) echo "check_install.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift 2
done

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}
# a directory given relative to the prefix (GNUInstallDirs), or absolute
under() {
	case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac
}

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
prefix=$work/prefix
sim=$source/tests/sim/h100x2.json
san=
[ -n "$sanitize" ] && san="-fsanitize=$sanitize -fno-omit-frame-pointer"

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
	cat "$work/install.log"
	echo "FAIL: cmake --install" >&2
	exit 1
}
L=$(under "$libdir")
I=$(under "$includedir")
B=$(under "$bindir")
D=$(under "$datadir")
M=$(under "$mandir")
version=$(sed -n 's/^#define AXL_VERSION_STRING "\(.*\)"$/\1/p' "$source/include/axl/version.h")

echo "== installed files"
for f in "$L/libaxl.so" "$L/libaxl.so.0" "$L/libaxl.a" "$I/axl.h" "$I/axl/version.h" "$B/axl" \
	"$L/pkgconfig/libaxl.pc" "$L/cmake/axl/axlConfig.cmake" "$L/cmake/axl/axlConfigVersion.cmake" \
	"$L/cmake/axl/axlTargets.cmake" "$L/axl/tensorfusion/libaccelerator_axl.so" \
	"$L/axl/tensorfusion/metadata.yaml" "$L/axl/tensorfusion-seed/libaccelerator_axl_seed.so" \
	"$L/axl/tensorfusion-seed/metadata.yaml" "$M/man1/axl.1"; do
	[ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
nschema=0
for s in "$source"/schema/*.json; do
	nschema=$((nschema + 1))
	cmp -s "$s" "$D/axl/schema/${s##*/}" || fail "schema not installed (or different): share/axl/schema/${s##*/}"
done
[ "$nschema" -ge 5 ] || fail "only $nschema schemas in schema/"
cmp -s "$source/docs/man/axl.1" "$M/man1/axl.1" || fail "man1/axl.1 differs from docs/man/axl.1"
grep -qx "version: $version" "$L/axl/tensorfusion/metadata.yaml" 2>/dev/null ||
	fail "metadata.yaml does not say version: $version"
grep -qx "version: $version" "$L/axl/tensorfusion-seed/metadata.yaml" 2>/dev/null ||
	fail "tensorfusion-seed/metadata.yaml does not say version: $version"

echo "== pkg-config"
export PKG_CONFIG_PATH="$L/pkgconfig"
cat "$L/pkgconfig/libaxl.pc"
got=$(pkg-config --variable=prefix libaxl) || got="(pkg-config failed)"
[ "$got" = "$prefix" ] || fail "libaxl.pc: prefix is $got, not $prefix"
got=$(pkg-config --modversion libaxl) || got="(pkg-config failed)"
[ "$got" = "$version" ] || fail "libaxl.pc: version $got, not $version"
flags=$(pkg-config --cflags --libs libaxl) || { fail "pkg-config --cflags --libs libaxl"; flags=; }
case " $flags " in *" -I$I "*) ;; *) fail "pkg-config --cflags: no -I$I in: $flags" ;; esac
case " $flags " in *" -L$L "*) ;; *) fail "pkg-config --libs: no -L$L in: $flags" ;; esac
static=$(pkg-config --static --libs libaxl) || static="(pkg-config --static failed)"
echo "static: $static"
case " $static " in *" -lm "*) ;; *) fail "pkg-config --static --libs: no -lm in: $static" ;; esac
# libaxl loads libpci (when built with it, --pciids ON) and zlib with dlopen: never linked
for l in -lpci -lz; do
	case " $static " in *" $l "*) fail "$l listed though libaxl loads it with dlopen (pciids $pciids): $static" ;; esac
done

echo "== a program built with pkg-config"
# shellcheck disable=SC2086 # word splitting of the flags is intended
if $cc $san -o "$work/hello-pc" "$source/tests/install/hello.c" $flags -ldl >"$work/cc.log" 2>&1; then
	out=$(LD_LIBRARY_PATH="$L" "$work/hello-pc" "$sim" 2>&1) || fail "hello-pc failed: $out"
	echo "$out"
	case $out in *"library: $L/libaxl.so"*) ;; *) fail "hello-pc did not load $L/libaxl.so.0" ;; esac
	case $out in *"devices: 2"*) ;; *) fail "hello-pc: not 2 devices" ;; esac
else
	cat "$work/cc.log" >&2
	fail "hello.c does not build with: $cc $san hello.c $flags"
fi

echo "== a project built with find_package(axl)"
consumer() { # build-dir [extra cmake arguments]
	d=$1
	shift
	"$cmake" -S "$source/tests/install/consumer" -B "$d" -DCMAKE_PREFIX_PATH="$prefix" \
		-DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
		-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Debug "$@" >"$d.log" 2>&1
}
if consumer "$work/consumer" -DAXL_REQUEST_VERSION="$version" &&
	"$cmake" --build "$work/consumer" >>"$work/consumer.log" 2>&1; then
	grep "axl $version from" "$work/consumer.log" || true
	grep -q "axl $version from $L/cmake/axl" "$work/consumer.log" ||
		fail "find_package(axl) did not find $L/cmake/axl"
	for kind in shared static; do
		out=$("$work/consumer/hello_$kind" "$sim" 2>&1) || fail "hello_$kind failed: $out"
		echo "$out"
		case $out in *"devices: 2"*) ;; *) fail "hello_$kind: not 2 devices" ;; esac
	done
	# the shared one through the RUNPATH CMake gives it: the installed library
	case $("$work/consumer/hello_shared" "$sim" 2>&1) in
	*"library: $L/libaxl.so"*) ;;
	*) fail "hello_shared did not load $L/libaxl.so.0" ;;
	esac
	case $("$work/consumer/hello_static" "$sim" 2>&1) in
	*"library: $work/consumer/hello_static"*) ;;
	*) fail "hello_static is not linked statically" ;;
	esac
else
	cat "$work/consumer.log" >&2
	fail "the find_package(axl) project does not configure or build"
fi
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
# the same major version and no newer (the SONAME is libaxl.so.<major>)
if [ "$minor" -gt 0 ] && ! consumer "$work/consumer-older" -DAXL_REQUEST_VERSION="$major.$((minor - 1))"; then
	fail "find_package(axl $major.$((minor - 1))) refused version $version"
fi
for v in "$major.$((minor + 1))" "$((major + 1)).0"; do
	if consumer "$work/consumer-$v" -DAXL_REQUEST_VERSION="$v"; then
		fail "find_package(axl $v) accepted version $version"
	elif ! grep -q "that is compatible" "$work/consumer-$v.log"; then
		cat "$work/consumer-$v.log" >&2
		fail "find_package(axl $v) failed, but not for the version"
	fi
done

echo "== the installed command and provider"
out=$(LD_LIBRARY_PATH="$L" "$B/axl" version 2>&1) || fail "axl version failed: $out"
echo "$out"
case $out in *"$version"*) ;; *) fail "axl version does not say $version" ;; esac
out=$(LD_LIBRARY_PATH="$L" "$B/axl" --sim "$sim" list 2>&1) || fail "axl --sim list failed: $out"
echo "$out"
case $out in *nvidia:1*) ;; *) fail "axl --sim list: no nvidia:1" ;; esac
tf=$L/axl/tensorfusion/libaccelerator_axl.so
for f in "$tf" "$L/axl/tensorfusion-seed/libaccelerator_axl_seed.so"; do
	if readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*libaxl'; then
		fail "${f##*/} needs libaxl.so (it should link it statically)"
	fi
	if readelf -d "$f" 2>/dev/null | grep -q 'R.*PATH'; then
		fail "${f##*/} keeps an RPATH/RUNPATH: $(readelf -d "$f" | grep 'R.*PATH')"
	fi
done
if [ -n "$tfhost" ]; then
	# without a limiter (the devices case expects soft isolation only); the installed
	# limiter beside the provider is found: hard isolation
	AXL_SIM=$sim AXL_STATE_DIR=$work/state AXL_LIMITER_LIBRARY=/nonexistent/libaxl_limiter.so "$tfhost" "$tf" devices ||
		fail "the installed provider (test_tf_host devices)"
fi
[ -f "$L/axl/libaxl_limiter.so" ] || fail "the limiter is not installed in $L/axl"
if [ -f "$build/kubernetes/axl-kubernetes.so" ]; then
	echo "== the installed device plugin and its module"
	[ -f "$L/axl/axl-kubernetes.so" ] || fail "axl-kubernetes.so is not installed in $L/axl"
	kd=$(mktemp -d /tmp/axl-inst-XXXXXX)
	LD_LIBRARY_PATH="$L" "$B/axl" --sim "$sim" device-plugin --kubelet-dir "$kd" >"$work/dp.log" 2>&1 &
	dp=$!
	i=0
	while [ $i -lt 100 ] && [ ! -S "$kd/axl-nvidia.com_gpu.sock" ]; do sleep 0.1; i=$((i + 1)); done
	[ -S "$kd/axl-nvidia.com_gpu.sock" ] || fail "the installed axl device-plugin did not listen: $(cat "$work/dp.log")"
	kill -TERM $dp
	wait $dp || fail "the installed axl device-plugin did not end cleanly: $(cat "$work/dp.log")"
	rm -rf "$kd"
fi

if [ "$failures" -ne 0 ]; then
	echo "$failures failures" >&2
	exit 1
fi
echo "install.prefix: all checks passed"
