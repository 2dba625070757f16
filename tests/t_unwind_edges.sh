#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwind_edges.sh - the unwinder's edge cases (issue 33): stacks whose
# frames are right only when each part is right, checked on small
# programs built -O2 -fomit-frame-pointer (tests/workloads/edges.c).
#  - return addresses named at the call (addr - 1): a caller whose call
#    is its last instruction (a noreturn callee) is named, not taken for
#    the next function or [unknown].
#  - a stack cut by the depth limit ends in [truncated] on its line.
#  - lld's layout (executable segments at file offsets that are not
#    page-aligned) gets its unwind table, as bfd's does.
#  - hundreds of libraries in one process: libc and ld.so keep their
#    tables; past the index's size, the libraries loaded last are left
#    out, and the summary names one.
#  - a realigned frame (DRAP: the CFA an expression) is walked through,
#    not guessed by its frame pointer (a wrong frame above it).
#  - a frame of 300000 bytes (CFA rsp + 300016) is walked through.
#  - a library's constructor that blocks while dlopen() runs (no table of
#    it in place yet) has whole stacks.
# Needs root and BPF (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads

can_unwind unwind_edges || exit 0
CF=("${CF_NOFP[@]}")
if ! { cc "${CF[@]}" -o "$TMPD/edges" "$WL/edges.c" &&
       cc -O2 -shared -fPIC -o "$TMPD/lib0.so" "$WL/edgelib.c"; } 2> "$TMPD/cc.err"; then
	fail unwind_edges_build "$(head -c 300 "$TMPD/cc.err")"
	exit 0
fi

# 1. Noreturn calls: main ends with a call to serve(), the thread's
# n1 -> n2 -> n3 are calls in tail position that never return.
"$TMPD/edges" noreturn 30 & NR=$!
sleep 0.3
"$OFFWAKE" -f -p $NR 2 > "$TMPD/nr" 2> "$TMPD/nr.err"; st=$?
kill $NR 2> /dev/null; wait $NR 2> /dev/null
for want in 'main;serve;block_forever;' 'thread;n1;n2;n3;block_forever;'; do
	if [ $st -eq 0 ] && grep -qF "$want" "$TMPD/nr"; then
		pass "unwind_edges_noreturn ($want)"
	else
		fail unwind_edges_noreturn "status $st, no '$want' in: $(cut -d' ' -f1 "$TMPD/nr" | head -c 400)"
	fi
done

# 2. The depth limit: blocked 200 calls deep, the line says it was cut
# (where its outer frames would be), and one 100 deep is not.
for depth in 200 100; do
	"$TMPD/edges" deep $depth 30 & DP=$!
	sleep 0.3
	"$OFFWAKE" -f -p $DP 1 > "$TMPD/deep$depth" 2> /dev/null; st=$?
	kill $DP 2> /dev/null; wait $DP 2> /dev/null
	n=$(grep -c '^edges;\[truncated\];deep;deep;' "$TMPD/deep$depth")
	reads=$(grep -c '^edges;.*;deep;block_forever;read;' "$TMPD/deep$depth")
	if [ $depth = 200 ]; then ok=$((n > 0 && n == reads)); else ok=$((n == 0 && reads > 0)); fi
	if [ $st -eq 0 ] && [ $ok = 1 ]; then
		pass "unwind_edges_depth_limit_$depth ($n of $reads lines marked)"
	else
		fail unwind_edges_depth_limit_$depth "status $st, $n of $reads blocked lines marked [truncated]"
	fi
done

# 3. The same program linked by bfd and by lld (when clang's lld is
# here): blocked time reaches _start through main in both.
for ld in bfd lld; do
	if ! command -v ld.$ld > /dev/null; then
		skip unwind_edges_linker_$ld "no ld.$ld"
		continue
	fi
	if ! cc "${CF[@]}" -fuse-ld=$ld -o "$TMPD/edges_$ld" "$WL/edges.c" \
		2> "$TMPD/cc.err"; then
		fail unwind_edges_linker_$ld "$(head -c 300 "$TMPD/cc.err")"
		continue
	fi
	"$TMPD/edges_$ld" deep 4 30 & DP=$!
	sleep 0.3
	"$OFFWAKE" -f -p $DP 2 > "$TMPD/ld_$ld" 2> /dev/null; st=$?
	kill $DP 2> /dev/null; wait $DP 2> /dev/null
	pct=$(awk '/;deep;block_forever;read;/ { t += $NF; if ($0 ~ /^edges_[a-z]*;_start;__libc_start_main[^;]*;__libc_start_call_main;main;deep;deep;deep;deep;deep;block_forever;read;/) k += $NF }
		END { printf "%d\n", t ? 100 * k / t : -1 }' "$TMPD/ld_$ld")
	if [ $st -eq 0 ] && [ "$pct" -ge 90 ]; then
		pass "unwind_edges_linker_$ld ($pct% of the blocked read time reaches _start)"
	else
		fail unwind_edges_linker_$ld "status $st, $pct% of the blocked read time reaches _start"
	fi
done

# 4. Many libraries: 300 (past the 128 the index held: libc's frames lost
# their table), and 600 (past its 512: the last loaded are left out,
# named in the summary; libc, ld.so and the executable keep theirs).
for nlibs in 300 600; do
	mkdir -p "$TMPD/libs$nlibs"
	for i in $(seq 1 $nlibs); do
		cp "$TMPD/lib0.so" "$TMPD/libs$nlibs/lib$i.so"	# one inode each
	done
	"$TMPD/edges" libs "$TMPD/libs$nlibs" 30 & LP=$!
	for _ in $(seq 100); do
		[ "$(grep -c 'lib[0-9]*\.so' /proc/$LP/maps 2> /dev/null)" -ge $nlibs ] && break
		sleep 0.05
	done
	"$OFFWAKE" -f -p $LP 2 > "$TMPD/many$nlibs" 2> "$TMPD/many$nlibs.err"; st=$?
	kill $LP 2> /dev/null; wait $LP 2> /dev/null
	pct=$(awk '/;serve;block_forever;read;/ { t += $NF; if ($0 ~ /^edges;_start;__libc_start_main[^;]*;__libc_start_call_main;main;serve;block_forever;read;/) k += $NF }
		END { printf "%d\n", t ? 100 * k / t : -1 }' "$TMPD/many$nlibs")
	named=0
	grep -q "mappings beyond 512 in a process had no table (the first: $TMPD/libs$nlibs/lib[0-9]*\.so)" "$TMPD/many$nlibs.err" && named=1
	if [ $st -eq 0 ] && [ "$pct" -ge 90 ] && [ $named = $((nlibs > 512)) ]; then
		pass "unwind_edges_many_libraries_$nlibs ($pct% of the blocked read time reaches _start)"
	else
		fail unwind_edges_many_libraries_$nlibs "status $st, $pct% of the blocked read time reaches _start; left-out library named: $named; $(tail -c 300 "$TMPD/many$nlibs.err")"
	fi
done

# 5. A realigned frame: main;r1;r2 exactly (a frame-pointer step there
# took rbp + 16 for the CFA and added a wrong frame: main;r1;r1;r2).
"$TMPD/edges" drap 30 & DP=$!
sleep 0.3
"$OFFWAKE" -f -p $DP 2 > "$TMPD/drap" 2> /dev/null; st=$?
kill $DP 2> /dev/null; wait $DP 2> /dev/null
pct=$(awk '/;r2;block_forever;read;/ { t += $NF; if ($0 ~ /^edges;_start;__libc_start_main[^;]*;__libc_start_call_main;main;r1;r2;block_forever;read;/) k += $NF }
	END { printf "%d\n", t ? 100 * k / t : -1 }' "$TMPD/drap")
if [ $st -eq 0 ] && [ "$pct" -ge 90 ]; then
	pass "unwind_edges_realigned ($pct% of the blocked read time exactly main;r1;r2)"
else
	fail unwind_edges_realigned "status $st, $pct% exactly main;r1;r2: $(grep -o 'main;[^-]*block_forever' "$TMPD/drap" | sort | uniq -c | head -3)"
fi

# 6. A blocking constructor of a library loaded during the capture: its
# one block's stack reaches _start through dlopen (it was cut at the
# library: no table yet, and asked for once a second at most).
if cc -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -shared -fPIC -DEDGE_CTOR \
	-o "$TMPD/libctor.so" "$WL/edgelib.c" 2> "$TMPD/cc.err"; then
	EDGE_GO=$TMPD/ctor.go "$TMPD/edges" ctor "$TMPD/libctor.so" 30 & CP=$!
	"$OFFWAKE" -f -p $CP 3 > "$TMPD/ctor" 2> /dev/null & OW=$!
	attached $OW && sleep 0.3
	touch "$TMPD/ctor.go"	# the library is loaded now, traced
	wait $OW; st=$?
	kill $CP 2> /dev/null; wait $CP 2> /dev/null
	pct=$(awk '/;ctor_wait;[a-z_]*nanosleep;/ { t += $NF; if ($0 ~ /^edges;_start;__libc_start_main[^;]*;__libc_start_call_main;main;.*dlopen.*;edgelib_ctor;ctor_wait;[a-z_]*nanosleep;/) k += $NF }
		END { printf "%d\n", t ? 100 * k / t : -1 }' "$TMPD/ctor")
	if [ $st -eq 0 ] && [ "$pct" -ge 90 ]; then
		pass "unwind_edges_dlopen_constructor ($pct% of the constructor's blocked time reaches _start)"
	else
		fail unwind_edges_dlopen_constructor "status $st, $pct% of the constructor's blocked time reaches _start: $(grep -o '^[^-]*ctor_wait' "$TMPD/ctor" | head -2)"
	fi
else
	fail unwind_edges_dlopen_constructor "$(head -c 300 "$TMPD/cc.err")"
fi

# 7. A 300000-byte frame: main;big1 whole (its CFA offset did not fit a
# row: the rule was not followed).
"$TMPD/edges" big 30 & BP=$!
sleep 0.3
"$OFFWAKE" -f -p $BP 2 > "$TMPD/big" 2> /dev/null; st=$?
kill $BP 2> /dev/null; wait $BP 2> /dev/null
pct=$(awk '/;big1;block_forever;read;/ { t += $NF; if ($0 ~ /^edges;_start;__libc_start_main[^;]*;__libc_start_call_main;main;big1;block_forever;read;/) k += $NF }
	END { printf "%d\n", t ? 100 * k / t : -1 }' "$TMPD/big")
if [ $st -eq 0 ] && [ "$pct" -ge 90 ]; then
	pass "unwind_edges_big_frame ($pct% of the blocked read time reaches _start)"
else
	fail unwind_edges_big_frame "status $st, $pct% reaches _start: $(grep -o '^[^-]*block_forever' "$TMPD/big" | sort | uniq -c | head -3)"
fi
