#!/bin/sh
# One JSON writer in the tree: src/util/json.c (axl__json_*), which libaxl, the command and
# the provider share (docs/internals/conventions.md). Outside src/util, no source may hold
#   - a JSON string escaper: the "\u%04x" escape of control characters;
#   - a JSON key written by hand: \"name\": in a C string ("{\"schema\":...");
#   - a document opened by hand: "{\" or "[\" in a C string;
#   - print_json_str, the command's old writer.
# Messages that quote a name (\"%s\" is not a string) have no colon after the quote.
# usage: check_one_json_writer.sh SOURCE_DIR
set -eu
src=$1/src
[ -f "$src/util/json.c" ] || { echo "no $src/util/json.c"; echo "0 passed, 1 failed"; exit 1; }
fail=0
for d in lib cli compat; do
	[ -d "$src/$d" ] || { echo "no $src/$d"; fail=1; }
done
found=$(grep -rnE -e '\\\\u%0[0-9]*[xX]' -e '\\"[A-Za-z0-9_%]+\\" ?:' -e '[({,] *"[[{]\\"' -e 'print_json_str' \
	--include='*.c' --include='*.h' "$src/lib" "$src/cli" "$src/compat" || true)
if [ -n "$found" ]; then
	echo "JSON written outside src/util's writer (use axl__json_*, src/util/json.h):"
	printf '%s\n' "$found"
	fail=1
fi
# the check itself: it finds what it looks for
probe='	printf("{\"schema\":\"axl.x\",");  fprintf(f, "\\u%04x", c);'
n=$(printf '%s\n' "$probe" | grep -cE -e '\\\\u%0[0-9]*[xX]' -e '\\"[A-Za-z0-9_%]+\\" ?:' || true)
if [ "$n" != 1 ]; then
	echo "the patterns do not find a hand-written writer in the probe line"
	fail=1
fi
if [ $fail -eq 0 ]; then
	echo "no JSON writer outside src/util in src/lib, src/cli, src/compat"
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
fi
exit $fail
