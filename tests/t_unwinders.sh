#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwinders.sh - a new unwinder is one file plus its row in the
# unwinders' table: build/tests_src/offwake-svg-xu is offwake-svg with
# tests/unit_src/unwind_test.c and src/unwind/unwinders.c's
# OW_TEST_UNWINDER row, nothing else (its kernel half, in every object, is
# bpf/unwind_test.bpf.h's walker and its rows in walks.c's table, loaded
# only when the row asks).  As root with BTF, a capture with
# it calls the row's lifecycle (start with -- CMD's process, process
# events, table passes, sweeps, stitching each user stack, finish), prints
# its summary line after the native one and frees it last, with the same
# stacks as offwake-svg; offwake-svg (no such row) prints none of it.
. "$(dirname "$0")/lib.sh"
XU=$TOP/build/tests_src/offwake-svg-xu
if [ ! -x "$XU" ]; then
	skip unwinders_extra "$XU not built (make test-bin)"
	exit 0
fi

# the unwinder's code is that file and its row: nothing else names it
other=$(grep -rl --include='*.[ch]' 'ow_unwinder_test\|OW_TEST_UNWINDER' "$TOP/src" | grep -v '/src/unwind/unwinders\.c$')
[ -z "$other" ] && pass unwinders_extra_one_row ||
	fail unwinders_extra_one_row "named outside unwinders.c: $(echo $other)"
# the capture and the folder reach the unwinders through the table only
bad=$(grep -lE '\b(cfi|uw_defer|py_procs|py_names|py_stitch)_[a-z_]*\(' "$TOP"/src/capture/*.c)
[ -z "$bad" ] && pass unwinders_through_table ||
	fail unwinders_through_table "unwinders called by name in: $(echo $bad)"

can_capture unwinders_extra_capture || exit 0
for bin in "$XU" "$OFFWAKE"; do
	t=$(basename "$bin")
	timeout 60 "$bin" -f -- sh -c \
		'for i in 1 2 3 4 5 6; do sleep 0.2; done; sh -c "sleep 0.1"' \
		> "$TMPD/$t.out" 2> "$TMPD/$t.err"
	echo $? > "$TMPD/$t.st"
done

# its line: each lifecycle step counted (the -- CMD forks and execs, and
# its sleeps' stacks were stitched: the capture ran the loop's passes)
line=$(grep '^offwake-svg: test unwinder: started' "$TMPD/offwake-svg-xu.err")
re='started with 1 processes; events: [1-9][0-9]* seen, [1-9][0-9]* exec, [1-9][0-9]* fork, [0-9]+ tables; [0-9]+ records, [1-9][0-9]* table passes, [0-9]+ sweeps, [1-9][0-9]* stacks stitched, [0-9]+ names asked, finished 1$'
if [ "$(cat "$TMPD/offwake-svg-xu.st")" = 0 ] && echo "$line" | grep -Eq "$re"; then
	pass unwinders_extra_lifecycle
else
	fail unwinders_extra_lifecycle "status $(cat "$TMPD/offwake-svg-xu.st"): $(head -c 600 "$TMPD/offwake-svg-xu.err")"
fi
# in the table's order: after the native row's line; freed after all
order=$(grep -noE 'user stacks of blocked threads|test unwinder: started|test unwinder: freed|kernel stacks:' \
	"$TMPD/offwake-svg-xu.err" | cut -d: -f2- | paste -sd '|')
[ "$order" = "user stacks of blocked threads|test unwinder: started|kernel stacks:|test unwinder: freed" ] &&
	pass unwinders_extra_order || fail unwinders_extra_order "$order"
# the stacks are the other rows' (the sleeps' nanosleep, named)
if grep -q '^sleep;.*clock_nanosleep;.*;schedule;__schedule' "$TMPD/offwake-svg-xu.out"; then
	pass unwinders_extra_stacks
else
	fail unwinders_extra_stacks "$(head -c 300 "$TMPD/offwake-svg-xu.out")"
fi
# its kernel half: loaded late for the -- CMD's process, whose user
# stacks (blocked, or waking another) then end in its frame, named by its
# row; no other process's
if grep -q '^offwake-svg: test unwinder: walker loaded for [1-9]' "$TMPD/offwake-svg-xu.err" &&
   grep -qE '^sh;\[test-walker\];.*;schedule;' "$TMPD/offwake-svg-xu.out" &&
   [ "$(grep -o 'test-walker' "$TMPD/offwake-svg-xu.out" | wc -l)" = \
     "$(grep -oE '^sh;\[test-walker\];|;\[test-walker\];sh[ ;]' "$TMPD/offwake-svg-xu.out" | wc -l)" ]; then
	pass unwinders_extra_bpf_walker
else
	fail unwinders_extra_bpf_walker "$(grep 'test unwinder: walker' "$TMPD/offwake-svg-xu.err"): $(grep -c 'test-walker' "$TMPD/offwake-svg-xu.out") stacks with its frame"
fi
# without its row, nothing of it (nor its walker's frame)
if ! grep -q 'test-walker' "$TMPD/offwake-svg.out"; then
	pass unwinders_extra_walker_not_loaded
else
	fail unwinders_extra_walker_not_loaded "$(grep -m2 'test-walker' "$TMPD/offwake-svg.out" | head -c 300)"
fi
if [ "$(cat "$TMPD/offwake-svg.st")" = 0 ] && ! grep -q 'test unwinder' "$TMPD/offwake-svg.err" &&
	grep -q '^offwake-svg: user stacks of blocked threads' "$TMPD/offwake-svg.err"; then
	pass unwinders_extra_not_in_release
else
	fail unwinders_extra_not_in_release "$(head -c 300 "$TMPD/offwake-svg.err")"
fi
