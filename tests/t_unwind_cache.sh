#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwind_cache.sh - unwind tables kept across captures
# (src/unwind/table_cache.c, issue 31: a new process's tables were built
# in each capture, 20-140 ms of the tracer's CPU per process here).
# ow_chain (tests/workloads/chain.c, no frame pointers: only the tables
# walk it, main -> f1..f6 -> read, woken by w1..w6 -> write), traced with
# -- CMD, with OFFWAKE_UNWIND_CACHE set to a directory of the test's:
# 1. the first capture builds its tables and keeps them there (files of
#    mode 0600 in a directory of mode 0700), none read back;
# 2. the second reads them back (its program's, libc's: at least 2) and
#    builds none of them again, and its stacks are the first's, whole;
# 3. a table file cut short or with rows out of order is not used: built
#    again, kept again, the stacks whole;
# 4. the program rebuilt (another file: its size and times): its table is
#    built again, libc's still read back;
# 5. a directory others may write to is not used (said in the summary);
#    OFFWAKE_UNWIND_CACHE=off: none, said so, no file written.
# Needs root, BPF, cc (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads

can_unwind unwind_cache || exit 0
if ! cc "${CF_NOFP[@]}" -o "$TMPD/ow_chain" "$WL/chain.c" "$WL/chainlib.c" 2> "$TMPD/cc.err"; then
	fail unwind_cache_build "$(head -c 300 "$TMPD/cc.err")"
	exit 0
fi
UC=$TMPD/uc

# run NAME [DIR]: a capture of ow_chain with the cache in DIR (default $UC)
run() {
	OFFWAKE_UNWIND_CACHE=${2:-$UC} cap "$1" -- "$TMPD/ow_chain" 2 thread
}
# counts NAME: "BUILT READ KEPT" from the summary's unwind tables line
counts() {
	sed -nE 's/.*unwind tables: .*, ([0-9]+) built in .*, ([0-9]+) read back from .* \(([0-9]+) kept there\).*/\1 \2 \3/p' "$TMPD/$1.err"
}
# the blocked thread's whole stack, f1..f6 under read, woken by w6..w1
WHOLE=';main;f1;f2;f3;f4;f5;f6;[^;]*read[^;]*;.*;--;.*;[^;]*write[^;]*;w6;w5;w4;w3;w2;w1;writer;'
whole() { share "$TMPD/$1" "$WHOLE" '^ow_chain;'; }
# the heaviest line of the blocked thread, without its count
top_line() { grep -a '^ow_chain;' "$TMPD/$1" | sort -t' ' -k2 -n | tail -1 | sed -E 's/ [0-9]+$//'; }

# 1. built, kept
run first
read -r b r k <<< "$(counts first)"
files=$(find "$UC" -name '*.uwt' | wc -l)
modes=$(find "$UC" -name '*.uwt' -printf '%m\n' | sort -u | tr '\n' ' ')
dmode=$(stat -c %a "$UC" 2> /dev/null)
if [ "${b:-0}" -ge 2 ] && [ "${r:-x}" = 0 ] && [ "${k:-0}" = "$b" ] &&
   [ "$files" = "$k" ] && [ "$modes" = "600 " ] && [ "$dmode" = 700 ]; then
	pass "unwind_cache_kept ($b built, $files files kept)"
else
	fail unwind_cache_kept "built ${b:-?}, read ${r:-?}, kept ${k:-?}, $files files of modes '$modes' in a directory of mode ${dmode:-?}: $(grep -a 'unwind tables' "$TMPD/first.err")"
fi

# 2. read back, the same stacks
run second
read -r b r k <<< "$(counts second)"
p1=$(whole first); p2=$(whole second)
if [ "${r:-0}" -ge 2 ] && [ "${b:-x}" = 0 ] && [ "$p1" -ge 80 ] && [ "$p2" -ge 80 ] &&
   [ "$(top_line first)" = "$(top_line second)" ]; then
	pass "unwind_cache_read_back ($r read back; whole: $p1% / $p2% of the blocked time)"
else
	fail unwind_cache_read_back "built ${b:-?}, read ${r:-?}; whole $p1% / $p2%; top lines '$(top_line first)' / '$(top_line second)': $(grep -a 'unwind tables' "$TMPD/second.err")"
fi

# 3. damaged files are not used: one cut short, the others' rows out of order
n=0
for f in "$UC"/*.uwt; do
	sz=$(stat -c %s "$f")
	if [ $n = 0 ]; then
		truncate -s $((sz - 8)) "$f"
	else	# the last row's pc over the row before it
		dd if="$f" of="$f" bs=1 skip=$((sz - 8)) seek=$((sz - 16)) count=4 conv=notrunc status=none
	fi
	n=$((n + 1))
done
run damaged
read -r b r k <<< "$(counts damaged)"
p3=$(whole damaged)
if [ "${r:-x}" = 0 ] && [ "${b:-0}" -ge 2 ] && [ "${k:-0}" = "$b" ] && [ "$p3" -ge 80 ]; then
	pass "unwind_cache_damaged_not_used ($b built again; whole: $p3%)"
else
	fail unwind_cache_damaged_not_used "built ${b:-?}, read ${r:-?}, kept ${k:-?}; whole $p3%: $(grep -a 'unwind tables' "$TMPD/damaged.err")"
fi

# 4. the program rebuilt: its table built again, the libraries' read back
cc "${CF_NOFP[@]}" -o "$TMPD/ow_chain.new" "$WL/chain.c" "$WL/chainlib.c" &&
	mv "$TMPD/ow_chain.new" "$TMPD/ow_chain"
run rebuilt
read -r b r k <<< "$(counts rebuilt)"
if [ "${b:-0}" -ge 1 ] && [ "${r:-0}" -ge 1 ] && [ "$(whole rebuilt)" -ge 80 ]; then
	pass "unwind_cache_file_changed ($b built, $r read back)"
else
	fail unwind_cache_file_changed "built ${b:-?}, read ${r:-?}: $(grep -a 'unwind tables' "$TMPD/rebuilt.err")"
fi

# 5. not ours alone; off
mkdir -p "$TMPD/opendir" && chmod 0777 "$TMPD/opendir"
run open "$TMPD/opendir"
if grep -q "no cache: $TMPD/opendir: not ours alone" "$TMPD/open.err" &&
   [ -z "$(ls "$TMPD/opendir")" ] && [ "$(whole open)" -ge 80 ]; then
	pass unwind_cache_open_dir_not_used
else
	fail unwind_cache_open_dir_not_used "$(grep -a 'unwind tables' "$TMPD/open.err"); in it: $(ls "$TMPD/opendir" | head -3)"
fi
before=$(find "$UC" -name '*.uwt' | wc -l)
touch "$TMPD/ow_chain"	# (a new version: would be kept)
run off off
if grep -q 'no cache: OFFWAKE_UNWIND_CACHE=off' "$TMPD/off.err" &&
   [ "$(find "$UC" -name '*.uwt' | wc -l)" = "$before" ] && [ "$(whole off)" -ge 80 ]; then
	pass unwind_cache_off
else
	fail unwind_cache_off "$(grep -a 'unwind tables' "$TMPD/off.err"); files $before -> $(find "$UC" -name '*.uwt' | wc -l)"
fi
