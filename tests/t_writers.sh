#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_writers.sh - a new output format is one file plus its row in the
# writers' table: build/tests_src/offwake-svg-xw is offwake-svg with
# tests/unit_src/export_test.c and src/export/writers.c's OW_TEST_WRITER
# row, nothing else.  Its "test" format is then a --format choice (and in
# the choices' message), chosen by -o FILE's extension, written by
# "convert" from the names it reads and, as root with BTF, by a capture
# with typed frames and the labels it asked for.
. "$(dirname "$0")/lib.sh"
XW=$TOP/build/tests_src/offwake-svg-xw
if [ ! -x "$XW" ]; then
	skip writers_extra "$XW not built (make test-bin)"
	exit 0
fi

# the format's code is that file and its row: nothing else names it
other=$(grep -rl 'export_test\|OW_TEST_WRITER' "$TOP/src" | grep -v '/src/export/writers\.c$')
[ -z "$other" ] && pass writers_extra_one_row ||
	fail writers_extra_one_row "named outside writers.c: $(echo $other)"

printf 'a;b;c 3\na;d 2.5\n' > "$TMPD/in.folded"
printf '3\tname:a;name:b;name:c\n2.5\tname:a;name:d\n' > "$TMPD/want"
"$XW" convert --format=test "$TMPD/in.folded" > "$TMPD/got" 2> "$TMPD/err"
cmp -s "$TMPD/want" "$TMPD/got" && pass writers_extra_convert ||
	fail writers_extra_convert "$(head -c 300 "$TMPD/got" "$TMPD/err")"
"$XW" convert -o "$TMPD/out.test.txt" "$TMPD/in.folded" 2> "$TMPD/err" &&
	cmp -s "$TMPD/want" "$TMPD/out.test.txt" && pass writers_extra_extension ||
	fail writers_extra_extension "$(head -c 300 "$TMPD/err")"

"$XW" --format=nosuch > /dev/null 2> "$TMPD/err"
grep -q "(choose from 'svg', 'folded', 'pprof', 'speedscope', 'perfetto', 'test')" "$TMPD/err" &&
	pass writers_extra_choices || fail writers_extra_choices "$(head -c 300 "$TMPD/err")"
"$OFFWAKE" --format=test > /dev/null 2> "$TMPD/err"
grep -q "invalid choice: 'test' (choose from 'svg', 'folded', 'pprof', 'speedscope', 'perfetto')" "$TMPD/err" &&
	pass writers_extra_not_in_release || fail writers_extra_not_in_release "$(head -c 300 "$TMPD/err")"

can_capture writers_extra_capture || exit 0
timeout 60 "$XW" --format=test -q -- sleep 0.2 > "$TMPD/cap" 2> "$TMPD/err"; st=$?
# sleep's nanosleep: labels it asked for, the thread, kernel frames, divider
if [ $st -eq 0 ] && grep -E '^[0-9]+ comm=sleep .*	thread:sleep;.*k:__schedule;divider:--;' "$TMPD/cap" > /dev/null; then
	pass writers_extra_capture
else
	fail writers_extra_capture "status $st: $(head -c 300 "$TMPD/cap" "$TMPD/err")"
fi
