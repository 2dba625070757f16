#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwind_tables.sh - the unwind tables of src/unwind/native_tables.c
# against readelf's own interpretation of the same CFI
# (--debug-dump=frames-interp), row by row (tests/unwind/readelf_cmp.awk):
# the fixture tests/unwind/chain.c built -O2 -fomit-frame-pointer (with
# .eh_frame, and with .debug_frame only), libc, ld.so, and the
# distribution binaries redis-server and python3 when installed.  Also:
# how long a table takes to build, for the biggest of them.
# Environment: UWDUMP (the dump tool; default the one `make test-bin`
# built next to UNIT_DIR, else compiled here).
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

if ! command -v readelf > /dev/null; then
	skip "unwind tables" "no readelf (binutils)"
	exit 0
fi

unit_dir=${UNIT_DIR:-build/tests}
UWDUMP=${UWDUMP:-$(dirname "$unit_dir")/tests_src/uwdump}
newer=$(find src/unwind/native_tables.[ch] src/unwind/go_ends.[ch] \
	src/symbols/gopclntab.[ch] tests/tools/uwdump.c \
	bpf/unwind_native.h -newer "$UWDUMP" 2> /dev/null | head -1)
if [ ! -x "$UWDUMP" ] || [ -n "$newer" ]; then
	UWDUMP=$TMPD/uwdump
	if ! cc -O2 -std=gnu11 -D_GNU_SOURCE -Isrc -Ibpf -o "$UWDUMP" tests/tools/uwdump.c \
		src/unwind/native_tables.c src/unwind/go_ends.c src/symbols/gopclntab.c \
		src/common/util.c -ldw -lelf 2> "$TMPD/cc.err"; then
		fail "unwind tables" "cannot build tests/tools/uwdump.c: $(head -c 300 "$TMPD/cc.err")"
		exit 0
	fi
fi

# compare NAME FILE: every readelf row and FDE end against our table
compare() {
	local name=$1 file=$2 out
	if ! "$UWDUMP" "$file" > "$TMPD/dump" 2> "$TMPD/err"; then
		fail "unwind tables: $name" "uwdump: $(cat "$TMPD/err")"
		return
	fi
	readelf --debug-dump=frames "$file" > "$TMPD/frames" 2> /dev/null
	readelf --debug-dump=frames-interp "$file" > "$TMPD/interp" 2> /dev/null
	out=$(awk -f tests/unwind/readelf_cmp.awk phase=1 "$TMPD/dump" \
		phase=2 "$TMPD/frames" phase=3 "$TMPD/interp")
	case $out in
	*"mismatches=0") ;;
	*) fail "unwind tables: $name agrees with readelf" "$(echo "$out" | tr '\n' ';')"; return ;;
	esac
	# a comparison of next to nothing would prove nothing
	local rows=${out#rows=}
	rows=${rows%% *}
	if [ "$rows" -lt "${3:-20}" ]; then
		fail "unwind tables: $name agrees with readelf" "only $rows rows compared: $out"
		return
	fi
	pass "unwind tables: $name agrees with readelf ($out; $(head -1 "$TMPD/dump" | cut -d' ' -f4-))"
}

if cc -O2 -fomit-frame-pointer -fno-stack-protector -shared -fPIC -o "$TMPD/chain.so" \
	tests/unwind/chain.c 2> /dev/null &&
   cc -O2 -fomit-frame-pointer -fno-stack-protector -shared -fPIC -g \
	-fno-asynchronous-unwind-tables -o "$TMPD/chain_dbg.so" tests/unwind/chain.c 2> /dev/null; then
	compare "fixture chain.so (.eh_frame)" "$TMPD/chain.so"
	compare "fixture chain.so (.debug_frame)" "$TMPD/chain_dbg.so"
	if grep -q 'debug_frame=1' "$TMPD/dump"; then
		pass "unwind tables: fixture: .debug_frame rows used"
	else
		fail "unwind tables: fixture: .debug_frame rows used" "$(head -1 "$TMPD/dump")"
	fi
else
	skip "unwind tables: fixture" "cannot compile tests/unwind/chain.c"
fi

# (libcrypto: hundreds of rows we do not follow, realigned AVX code: the
# ones with rbp saved beside the return address say so)
for f in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
	 /usr/bin/redis-server /usr/bin/python3 \
	 /usr/lib/x86_64-linux-gnu/libcrypto.so.3; do
	if [ -f "$f" ]; then
		compare "$(basename "$f")" "$(readlink -f "$f")" 1000
	else
		skip "unwind tables: $(basename "$f")" "not installed"
	fi
done

# libc's whole table: its size is what the capture loads (build times
# are for make bench, not for a test on a shared VM)
if [ -f /lib/x86_64-linux-gnu/libc.so.6 ]; then
	line=$("$UWDUMP" -s /lib/x86_64-linux-gnu/libc.so.6)
	rows=$(echo "$line" | sed -n 's/.*: \([0-9]*\) rows,.*/\1/p')
	if [ -n "$rows" ] && [ "$rows" -gt 1000 ] && [ "$rows" -lt 1000000 ]; then
		pass "unwind tables: libc's table has a sane size ($line)"
	else
		fail "unwind tables: libc's table has a sane size" "$line"
	fi
fi

