#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwind.sh - end-to-end tests of CFI user-stack unwinding (issue 22,
# `--unwind=auto|fp|cfi`): workloads of our own built -O2
# -fomit-frame-pointer (tests/workloads/chain.c + chainlib.c, in one
# binary and split across a shared library; sigchain.c, blocking inside a
# signal handler, interrupted in pause() or anywhere in a busy loop) are
# captured with --unwind=cfi, and both the blocked thread's user stack and
# its waker's must show every function of the known chains, from the
# thread's entry (main or start_thread) down to read()/write(), for at
# least 90% of the pipe-blocked time, which must itself be about right.
# The same assertions must fail on a --unwind=fp capture of the same
# process (so they can fail); --unwind=auto must give the CFI stacks; a bad
# --unwind value is a usage error naming the option.  Two more builds of
# chain.c: with frame pointers (their walk loses f6; CFI must not), and
# with frame pointers but no unwind tables (--unwind=auto must mix tables
# and frame pointers into the whole chain; --unwind=cfi must end where the
# tables do, without garbage frames).
#
# Skips (SKIP line) without root, kernel BTF or a C compiler, and when the
# binary has no --unwind option (before the walker lands).  T_UNWIND_FORCE=1
# runs the assertions anyway on today's default capture (frame pointers),
# to show them fail.  T_UNWIND_SECONDS (default 3) is each capture's length,
# T_UNWIND_CASES (default "chain split sigpause sigspin withfp mixed") the
# cases run,
# T_UNWIND_KEEP=DIR keeps the captures (NAME.cfi, NAME.fp, NAME.auto).
. "$(dirname "$0")/lib.sh"
set -u
OFFWAKE=${OFFWAKE:-$PWD/offwake-svg}
WL=$(cd "$(dirname "$0")/workloads" && pwd)
SHARES=$(cd "$(dirname "$0")/bench" && pwd)/stack_shares.py
SECS=${T_UNWIND_SECONDS:-3}

if "$OFFWAKE" --help 2>/dev/null | grep -q -- --unwind; then
	FP=(--unwind=fp); HAVE=1
elif [ -n "${T_UNWIND_FORCE:-}" ]; then
	echo "t_unwind: $OFFWAKE has no --unwind: T_UNWIND_FORCE set, asserting on its default (frame-pointer) stacks"
	FP=(); HAVE=0
else
	skip unwind "$OFFWAKE has no --unwind option yet (CFI unwinding, issue 22)"
	exit 0
fi

# A bad value is a usage error naming the option (no privileges needed).
if [ $HAVE = 1 ]; then
	out=$("$OFFWAKE" -f --unwind=bogus 1 2>&1 >/dev/null); st=$?
	if [ $st -eq 2 ] && grep -q -- '--unwind' <<<"$out" && grep -q bogus <<<"$out"; then
		pass unwind_bad_value
	else
		fail unwind_bad_value "status $st (want 2), message: $out"
	fi
fi

can_capture unwind || exit 0
if ! command -v python3 >/dev/null; then
	skip unwind "python3 not installed (tests/bench/stack_shares.py)"
	exit 0
fi

# The workloads, without frame pointers (and no sibling calls, so that
# every function of a chain keeps its frame); chain again with frame
# pointers, and with frame pointers but no unwind tables.
CF=(-O2 -fomit-frame-pointer -fno-optimize-sibling-calls -pthread)
if ! { cc "${CF[@]}" -o "$TMPD/chain" "$WL/chain.c" "$WL/chainlib.c" &&
       cc "${CF[@]}" -shared -fPIC -o "$TMPD/libowchain.so" "$WL/chainlib.c" &&
       cc "${CF[@]}" -o "$TMPD/chainsplit" "$WL/chain.c" -L"$TMPD" -lowchain -Wl,-rpath,"$TMPD" &&
       cc "${CF[@]}" -o "$TMPD/sigchain" "$WL/sigchain.c" &&
       cc -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -o "$TMPD/chainwithfp" \
		"$WL/chain.c" "$WL/chainlib.c" &&
       cc -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -pthread -o "$TMPD/chainmixed" "$WL/chain.c" "$WL/chainlib.c"; } 2> "$TMPD/cc.err"; then
	skip unwind "cannot compile the workloads: $(head -c 300 "$TMPD/cc.err")"
	exit 0
fi
# ... and really without: no function of the chains sets up rbp as a frame
# pointer (a walk by frame pointers cannot follow them).
if command -v objdump >/dev/null; then
	fpfun=$(for b in chain libowchain.so sigchain; do
		objdump -d --no-show-raw-insn "$TMPD/$b" |
			awk -v b="$b" '/^[0-9a-f]+ <(main|writer|[fwh][1-6])>:$/ { fn = $2; prev = ""; next }
				/^$/ { fn = "" }
				fn != "" && prev ~ /push +%rbp$/ && /mov +%rsp,%rbp$/ { print b ":" fn }
				{ prev = $0 }'
	done | sort -u | tr '\n' ' ')
	if [ -z "$fpfun" ]; then
		pass unwind_workloads_without_frame_pointers
	else
		fail unwind_workloads_without_frame_pointers "frame pointer set up in $fpfun"
	fi
	if readelf -d "$TMPD/chainsplit" | grep -q 'NEEDED.*libowchain\.so' &&
	   ! objdump -d "$TMPD/chainsplit" | grep -q '<f4>:'; then
		pass unwind_split_workload_uses_library
	else
		fail unwind_split_workload_uses_library "chainsplit does not take f4..f6 from libowchain.so"
	fi
	# chainwithfp sets up frame pointers; chainmixed too, and no FDE of its
	# .eh_frame covers f1..f6
	f1=$(nm "$TMPD/chainmixed" | awk '$3 == "f1" { print $1 }')
	covered=${f1:-none}
	while read -r lo hi; do
		[ -n "$f1" ] && [ $((16#$f1)) -ge $((16#$lo)) ] && [ $((16#$f1)) -lt $((16#$hi)) ] && covered=yes
	done < <(readelf -wf "$TMPD/chainmixed" | sed -n 's/.* FDE .*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1 \2/p')
	# has_fp BIN: f1 of BIN sets up rbp as its frame pointer
	has_fp() {
		objdump -d --no-show-raw-insn "$1" |
			awk '/^[0-9a-f]+ <f1>:$/ { in1 = 1; next } /^$/ { in1 = 0 }
				in1 && /mov +%rsp,%rbp$/ { found = 1 } END { exit !found }'
	}
	if has_fp "$TMPD/chainwithfp" && has_fp "$TMPD/chainmixed" &&
	   [ "$covered" = "$f1" ]; then
		pass unwind_fp_workloads_built_as_meant
	else
		fail unwind_fp_workloads_built_as_meant "chainwithfp/chainmixed: no frame pointer, or an FDE covering f1 in chainmixed"
	fi
else
	skip unwind_workloads_without_frame_pointers "objdump not installed"
fi

# The expected user stacks, root first, each frame followed by ";", as
# awk EREs (mawk: no {m,n}).  Before main, only the C runtime's start
# frames (the root-most one named); before the writer thread's function,
# start_thread and possibly clone3.  Between the last function of a chain
# and the kernel, libc's read/write (one or two names: an alias, a
# nocancel variant).
MAINROOT='^((_start|__libc_start_main[A-Za-z0-9_]*|__libc_start_call_main);((__libc_start_main[A-Za-z0-9_]*|__libc_start_call_main|\[unknown\]|\[libc[-.a-z0-9]*\]);)*)?main;'
THREADROOT='^((clone3|clone|__clone3|__clone|__GI___clone3|__GI___clone|__clone_internal);)?start_thread;'
RD='(__GI_)?_*(libc_)?read(_nocancel)?;'
WR='(__GI_)?_*(libc_)?write(_nocancel)?;'
PA='(__GI_)?_*(libc_)?pause;'
FCHAIN='f1;f2;f3;f4;f5;f6;'
WCHAIN='writer;w1;w2;w3;w4;w5;w6;'$WR'('$WR')?$'
HCHAIN='__restore_rt;h1;h2;h3;'$RD'('$RD')?$'

# chk FILE BCOMM WCOMM BLOCKED_RE WAKER_RE: over the blocks of BCOMM in
# pipe_read woken by WCOMM in pipe_write, print "TOTAL BLOCKED_OK
# WAKER_OK BOTH_OK" (microseconds), then the heaviest block whose stacks
# do not both match (its user frames, root first: blocked -- waker).
chk() {
	BCOMM=$2 WCOMM=$3 BRE=$4 WRE=$5 awk '
	function root_first(a, from, to,   s, i) {
		s = ""
		if (from <= to) { for (i = from; i <= to; i++) s = s a[i] ";" }
		else { for (i = from; i >= to; i--) s = s a[i] ";" }
		return s
	}
	{
		cnt = $NF; st = substr($0, 1, length($0) - length($NF) - 1)
		d = index(st, ";--;"); if (!d) next
		nb = split(substr(st, 1, d - 1), b, ";")
		nw = split(substr(st, d + 4), w, ";")
		if (b[1] != ENVIRON["BCOMM"] || w[nw] != ENVIRON["WCOMM"]) next
		bd = nb + 1; for (i = 2; i <= nb; i++) if (b[i] == "-") { bd = i; break }
		wd = 0; for (i = 1; i < nw; i++) if (w[i] == "-") { wd = i; break }
		bk = root_first(b, bd + 1, nb); wk = root_first(w, 1, wd - 1)
		if (bk !~ /pipe_read/ || wk !~ /pipe_write/) next
		bu = root_first(b, 2, bd - 1); wu = root_first(w, nw - 1, wd + 1)
		okb = bu ~ ENVIRON["BRE"]; okw = wu ~ ENVIRON["WRE"]
		tot += cnt; gb += okb * cnt; gw += okw * cnt; g += okb * okw * cnt
		if (!(okb && okw) && cnt > badn) { badn = cnt; bad = bu " -- " wu }
	}
	END { printf "%d %d %d %d\n%s\n", tot, gb, gw, g, substr(bad, 1, 600) }' "$1"
}
# pct PART WHOLE: PART as a whole percentage of WHOLE
pct() { [ "$2" -gt 0 ] && echo $(($1 * 100 / $2)) || echo 0; }
# complete FILE: the percentage of blocked time whose user stack reaches
# its thread's entry (tests/bench/stack_shares.py's definition).
complete() { python3 "$SHARES" "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /%$/) { sub(/%/, "", $i); print int($i); exit } }'; }

# cap NAME ARGS...: folded capture, with delimiters, into $TMPD/NAME
# (stopped if it takes two minutes more than it should).
cap() {
	local n=$1; shift
	if ! timeout -k 10 $((SECS + 120)) "$OFFWAKE" -f -d -q "$@" > "$TMPD/$n" 2> "$TMPD/$n.err"; then
		fail "unwind_${n}_capture" "$OFFWAKE -f -d $*: $(head -c 300 "$TMPD/$n.err")"
		return 1
	fi
}

# start NAME CMD...: run a workload (it outlives the captures, however
# slowly they start: stop kills it); WPID is its pid, once it is ready.
WPID=
trap '[ -n "$WPID" ] && kill "$WPID" 2>/dev/null; rm -rf "$TMPD"' EXIT
start() {
	local n=$1; shift
	"$@" > "$TMPD/$n.out" 2>&1 & WPID=$!
	for _ in $(seq 100); do grep -q ready "$TMPD/$n.out" 2>/dev/null && break; sleep 0.05; done
	sleep 0.2
}
stop() { kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; WPID=; }

# case_ NAME BCOMM WCOMM BLOCKED_RE WAKER_RE RATIO_LO RATIO_HI BIN MODE:
# run the workload, capture it with --unwind=$POS (default cfi) and with
# frame pointers (at the same time), assert.  With HONEST_B and HONEST_W
# set (EREs), also capture it with --unwind=cfi and assert that its stacks
# match them (end honestly where no table covers a pc).
case_() {
	local n=$1 bc=$2 wc=$3 bre=$4 wre=$5 lo=$6 hi=$7 r tot gb gw g bad c ref lost pids kids
	local pos=${POS:-cfi} pf posopt=() cp hp=
	case " ${T_UNWIND_CASES:-chain split sigpause sigspin withfp mixed} " in *" $n "*) ;; *) return ;; esac
	pf=$TMPD/$n.$pos
	[ $HAVE = 1 ] && posopt=(--unwind="$pos")
	start "$n" "$8" 600 "$9"
	# (and its forked writer)
	pids=$WPID
	kids=$(pgrep -P "$WPID" | tr '\n' ',')
	[ -n "$kids" ] && pids=$pids,${kids%,}
	cap "$n.$pos" ${posopt[@]+"${posopt[@]}"} -p "$pids" "$SECS" & cp=$!
	if [ -n "${HONEST_B:-}" ] && [ $HAVE = 1 ]; then
		cap "$n.cfi" --unwind=cfi -p "$pids" "$SECS" & hp=$!
	fi
	cap "$n.fp" ${FP[@]+"${FP[@]}"} -p "$pids" "$SECS"
	wait $cp || { stop; return; }
	[ -n "$hp" ] && wait $hp
	if [ ! -s "$pf" ] || [ ! -s "$TMPD/$n.fp" ]; then
		fail "unwind_${n}_capture" "nothing captured: $(cat "$pf.err" "$TMPD/$n.fp.err" | head -c 300)"
		stop
		return
	fi
	if [ "$n" = chain ] && [ $HAVE = 1 ]; then
		cap "$n.auto" --unwind=auto -p "$pids" "$SECS"
	fi
	stop
	[ -n "${T_UNWIND_KEEP:-}" ] && cp "$TMPD/$n".* "$T_UNWIND_KEEP/"

	r=$(chk "$pf" "$bc" "$wc" "$bre" "$wre")
	read -r tot gb gw g <<<"$(head -1 <<<"$r")"
	bad=$(tail -n +2 <<<"$r")
	# Blocked time: the writer sleeps nearly all the time, so its blocked
	# time is the length of the traced window (more than DURATION: tracing
	# starts before the capture's clock does, seconds before on a loaded
	# VM); the reader's time in read() must be the right share of it
	# (RATIO_LO..RATIO_HI percent), and nothing may be lost.
	ref=$(awk -v w="$wc" '{ split($0, a, ";") } a[1] == w { s += $NF } END { print s + 0 }' "$pf")
	lost=$(grep -E 'warning: .*(stacks (not taken|lost|never)|dropped|events lost|counts map was full)' "$pf.err" | head -c 300)
	if [ "$ref" -ge $((SECS * 800000)) ] && [ $((tot * 100)) -ge $((ref * lo)) ] &&
	   [ $((tot * 100)) -le $((ref * hi)) ] && [ -z "$lost" ]; then
		pass "unwind_${n}_blocked_time ($tot us in read(), $(pct "$tot" "$ref")% of the writer's $ref us; --unwind=$pos)"
	else
		fail "unwind_${n}_blocked_time" "$bc blocked $tot us in read() woken by $wc: $(pct "$tot" "$ref")% of $wc's $ref us blocked (want $lo-$hi%, and $wc's at least $SECS s); loss warnings: ${lost:-none}"
	fi
	if [ "$tot" -gt 0 ] && [ "$(pct "$gb" "$tot")" -ge 90 ]; then
		pass "unwind_${n}_blocked_stack ($(pct "$gb" "$tot")% complete)"
	else
		fail "unwind_${n}_blocked_stack" "$(pct "$gb" "$tot")% of $tot us with the whole chain (want 90%); heaviest other: $bad"
	fi
	if [ "$tot" -gt 0 ] && [ "$(pct "$gw" "$tot")" -ge 90 ]; then
		pass "unwind_${n}_waker_stack ($(pct "$gw" "$tot")% complete)"
	else
		fail "unwind_${n}_waker_stack" "$(pct "$gw" "$tot")% of $tot us with the whole waker chain (want 90%); heaviest other: $bad"
	fi
	# every block of the process (preemptions, the writer thread's sleeps...)
	c=$(complete "$pf")
	if [ "${c:-0}" -ge 90 ]; then
		pass "unwind_${n}_entry ($c% of the blocked time reaches its thread's entry)"
	else
		fail "unwind_${n}_entry" "${c:-0}% of the blocked time reaches its thread's entry (want 90%): $(python3 "$SHARES" --header --by-comm 3 "$pf" | tr -s ' ' | tr '\n' '|')"
	fi

	# The same assertions on frame-pointer stacks must fail.
	r=$(chk "$TMPD/$n.fp" "$bc" "$wc" "$bre" "$wre")
	read -r tot gb gw g <<<"$(head -1 <<<"$r")"
	if [ "$tot" -eq 0 ]; then
		fail "unwind_${n}_fp_incomplete" "no block of $bc in read() woken by $wc in the frame-pointer capture"
	elif [ "$(pct "$gb" "$tot")" -le 10 ] &&
	     ! grep -Eq "^$bc;[^ ]*;main;f1;f2;f3;f4;f5;f6;(__GI___libc_read|__libc_read|read);" "$TMPD/$n.fp"; then
		# (a block in read() through f6: a preemption inside f6 itself
		# has f6 as its interrupted pc, which frame pointers keep)
		pass "unwind_${n}_fp_incomplete (frame pointers: $(pct "$gb" "$tot")% complete: $(tail -n +2 <<<"$r" | cut -c1-120))"
	else
		fail "unwind_${n}_fp_incomplete" "frame-pointer stacks pass the CFI assertions ($(pct "$gb" "$tot")% of $tot us): the test cannot fail"
	fi

	if [ -n "$hp" ]; then
		# shellcheck disable=SC2153
		r=$(chk "$TMPD/$n.cfi" "$bc" "$wc" "$HONEST_B" "$HONEST_W")
		read -r tot gb gw g <<<"$(head -1 <<<"$r")"
		if [ "$tot" -gt 0 ] && [ "$(pct "$g" "$tot")" -ge 90 ]; then
			pass "unwind_${n}_cfi_ends_honestly ($(pct "$g" "$tot")% of $tot us)"
		else
			fail "unwind_${n}_cfi_ends_honestly" "--unwind=cfi: $(pct "$g" "$tot")% of $tot us with stacks that are the chains' ends (want 90%); heaviest other: $(tail -n +2 <<<"$r")"
		fi
	fi
	if [ "$pos" != auto ] && [ -f "$TMPD/$n.auto" ]; then
		r=$(chk "$TMPD/$n.auto" "$bc" "$wc" "$bre" "$wre")
		read -r tot gb gw g <<<"$(head -1 <<<"$r")"
		if [ "$tot" -gt 0 ] && [ "$(pct "$g" "$tot")" -ge 90 ]; then
			pass "unwind_${n}_auto ($(pct "$g" "$tot")% complete)"
		else
			fail "unwind_${n}_auto" "--unwind=auto: $(pct "$g" "$tot")% of $tot us with both chains (want 90%): $(tail -n +2 <<<"$r")"
		fi
	fi
}

# 1. one binary; the waker is a thread
case_ chain ow_chain ow_chainw "${MAINROOT}${FCHAIN}${RD}(${RD})?\$" "${THREADROOT}${WCHAIN}" \
	70 130 "$TMPD/chain" thread
# 2. f4..f6 and w4..w6 in a shared library; the waker is a forked child
# (traced too)
case_ split ow_chain ow_chainw "${MAINROOT}${FCHAIN}${RD}(${RD})?\$" "${MAINROOT}${WCHAIN}" \
	70 130 "$TMPD/chainsplit" fork
# 3. blocking in a signal handler that interrupted pause() (the handler's
# read takes 10 ms of the writer's cycle of 15 ms and more)
case_ sigpause ow_sig ow_sigw "${MAINROOT}${FCHAIN}${PA}(${PA})?${HCHAIN}" "${THREADROOT}${WCHAIN}" \
	20 95 "$TMPD/sigchain" pause
# 4. ... that interrupted a busy loop at any instruction of f6
case_ sigspin ow_sig ow_sigw "${MAINROOT}${FCHAIN}${HCHAIN}" "${THREADROOT}${WCHAIN}" \
	20 95 "$TMPD/sigchain" spin
# 5. built with frame pointers: the frame-pointer walk loses f6 (the
# caller of read(), which has no frame of its own), CFI must not
case_ withfp ow_chain ow_chainw "${MAINROOT}${FCHAIN}${RD}(${RD})?\$" "${THREADROOT}${WCHAIN}" \
	70 130 "$TMPD/chainwithfp" thread
# 6. no unwind tables for the program's own code, frame pointers instead
# (as JIT code): --unwind=auto must walk libc by its tables, the program
# by its frame pointers, and libc's start again by its tables; --unwind=cfi
# must end where the tables do, with no garbage frame: the stacks are the
# chains' last frames (a suffix of them).
# suffix RE FRAME...: RE, then each FRAME, all optional from the root
suffix() { local re=$1 f; shift; for f; do re="($re)?$f;"; done; echo "$re"; }
MAINENTRY='(_start|__libc_start_main[A-Za-z0-9_]*|__libc_start_call_main);((__libc_start_main[A-Za-z0-9_]*|__libc_start_call_main|\[unknown\]|\[libc[-.a-z0-9]*\]);)*'
HONEST_B="^($(suffix "($MAINENTRY)?main;" f1 f2 f3 f4 f5 f6))?${RD}(${RD})?\$" \
HONEST_W="^($(suffix "((clone3|clone|__clone3|__clone|__GI___clone3|__GI___clone|__clone_internal);)?start_thread;" writer w1 w2 w3 w4 w5 w6))?${WR}(${WR})?\$" \
POS=auto case_ mixed ow_chain ow_chainw "${MAINROOT}${FCHAIN}${RD}(${RD})?\$" "${THREADROOT}${WCHAIN}" \
	70 130 "$TMPD/chainmixed" thread
