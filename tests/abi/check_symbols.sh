#!/bin/sh
# Every symbol libaxl exports starts with axl_, and every function the public headers
# declare with AXL_API is exported (no header/library drift).
# usage: check_symbols.sh LIBAXL.so INCLUDE_DIR
set -eu
lib=$1
inc=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$exported" | grep -v '^axl_' || true)
fail=0
if [ -n "$bad" ]; then
	echo "exported symbols without the axl_ prefix:"
	printf '  %s\n' $bad
	fail=1
fi
declared=$(grep -rhoE 'AXL_API[^(]*\b(axl_[a-z0-9_]+)\s*\(' "$inc" | grep -oE 'axl_[a-z0-9_]+\s*\($' | tr -d ' (' | sort -u)
for f in $declared; do
	if ! printf '%s\n' "$exported" | grep -qx "$f"; then
		echo "declared in the headers but not exported: $f"
		fail=1
	fi
done
n_exp=$(printf '%s\n' "$exported" | grep -c . || true)
n_decl=$(printf '%s\n' "$declared" | grep -c . || true)
if [ "$n_decl" -lt 10 ]; then
	echo "found only $n_decl declarations: the header scan is broken"
	fail=1
fi
for f in $exported; do
	if ! printf '%s\n' "$declared" | grep -qx "$f"; then
		echo "exported but not declared in a public header: $f"
		fail=1
	fi
done
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
if [ "$soname" != "libaxl.so.0" ]; then
	echo "SONAME is '$soname', expected libaxl.so.0"
	fail=1
fi
if [ $fail -eq 0 ]; then
	echo "$n_exp exported symbols, $n_decl declared: all axl_, all match; SONAME $soname"
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
fi
exit $fail
