#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_unwind_rules.sh - CFI rules beyond rsp and rbp (issue 29, item 3).
# 1. User stacks through the dynamic loader's lazy binding.  ld.so's _dl_runtime_resolve_xsavec
# realigns the stack and says so in its CFI: CFA = rbx + 32, so a walker
# that follows only rsp and rbp stopped there.  tests/workloads/lazybind.c
# blocks inside it: its first call to lazy_wait() (an IFUNC of its own
# library, tests/workloads/lazylib.c) goes through its PLT, built -z lazy,
# to the resolver and _dl_fixup, which call the IFUNC's resolver, which
# reads a pipe.  With -p on it, at least 90% of that read's blocked time
# must reach _start through the resolver, and the blocked time must be
# about the capture's length.  Before rbx was followed the stacks ended at
# _dl_runtime_resolve_xsavec (0% whole).
# 2. A frame whose rule the tables cannot say (tests/workloads/oddcfa.c:
# CFA = r12, with a frame pointer): the walk goes on by rbp, whole, and
# the summary says that walks met such rows and names the files that
# have them (ow_oddcfa among the three worst: only the traced process's
# files have tables).  Before, nothing was said.
# Needs root, BPF, cc (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads

can_unwind unwind_rules || exit 0
if ! { cc "${CF_NOFP[@]}" -shared -fPIC -Wl,-z,now -o "$TMPD/liblazylib.so" "$WL/lazylib.c" &&
       cc "${CF_NOFP[@]}" -o "$TMPD/ow_lazybind" "$WL/lazybind.c" -L"$TMPD" -llazylib \
	  -Wl,-rpath,"$TMPD" -Wl,-z,lazy &&
       cc "${CF_NOFP[@]}" -o "$TMPD/ow_oddcfa" "$WL/oddcfa.c"; } 2> "$TMPD/cc.err"; then
	fail unwind_rules_build "$(head -c 300 "$TMPD/cc.err")"
	exit 0
fi

# capture NAME SECONDS CMD...: CMD in the background (it must outlive the
# capture, which may take seconds to start on a busy machine; killed
# after it; it reads our stdin), captured with -p into $TMPD/NAME and
# NAME.err; status in st
capture() {
	local name=$1 secs=$2 pid
	shift 2
	"$@" <&0 & pid=$!
	sleep 0.3
	"$OFFWAKE" -f -p $pid "$secs" > "$TMPD/$name" 2> "$TMPD/$name.err"; st=$?
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
}

# shares FILE WHOLE PART: "T P": the microseconds of lines matching PART,
# and the percentage of them that also match WHOLE
shares() {
	awk -v w="$2" -v p="$3" '$0 ~ p { t += $NF; if ($0 ~ w) k += $NF }
		END { printf "%d %d\n", t, t ? 100 * k / t : -1 }' "$1"
}
READ='(__GI___libc_read|__libc_read|read);'
START='^[^;]*;_start;__libc_start_main[^;]*;__libc_start_call_main;main;'

# 1. the main thread's read, in the IFUNC's resolver, in ld.so
capture lazy 3 env -u LD_BIND_NOW "$TMPD/ow_lazybind" 20
read -r tot pct < <(shares "$TMPD/lazy" \
	"${START}_dl_runtime_resolve[a-z_]*;_dl_fixup;(lazy_pick|lazy_wait);lazy_block;$READ" \
	"^ow_lazybind;(.*;)?lazy_block;$READ")
if [ $st -eq 0 ] && [ "$pct" -ge 90 ]; then
	pass "unwind_rules_lazy_whole ($pct% of the resolver's blocked time reaches _start)"
else
	fail unwind_rules_lazy_whole "status $st, $pct% whole: $(grep -m1 'lazy_block' "$TMPD/lazy" | head -c 300); $(head -c 300 "$TMPD/lazy.err")"
fi
# blocked for most of the 3 s (microseconds)
if [ "$tot" -ge 2000000 ] && [ "$tot" -le 3600000 ]; then
	pass "unwind_rules_lazy_time ($tot us blocked in the resolver)"
else
	fail unwind_rules_lazy_time "$tot us blocked under lazy_block in a 3 s capture"
fi

# 2. A row we cannot follow (fed a byte every 10 ms: each read ends)
feed() { for _ in $(seq 400); do printf x; sleep 0.01; done; }
capture odd 2 "$TMPD/ow_oddcfa" < <(feed)
read -r tot pct < <(shares "$TMPD/odd" "${START}odd_read;$READ" \
	"^ow_oddcfa;(.*;)?odd_read;$READ")
if [ $st -eq 0 ] && [ "$pct" -ge 90 ]; then
	pass "unwind_rules_unfollowed_whole ($pct% whole by rbp past the r12 rule)"
else
	fail unwind_rules_unfollowed_whole "status $st, $pct% whole: $(grep -m1 odd_read "$TMPD/odd" | head -c 300)"
fi
note=$(grep 'walks met CFI rules we do not follow' "$TMPD/odd.err")
if [[ $note =~ note:\ [1-9][0-9]*\ walks\ met.*rows\ we\ cannot\ follow:.*\ ow_oddcfa\ 1[,\ ] ]]; then
	pass "unwind_rules_unfollowed_reported"
else
	fail unwind_rules_unfollowed_reported "no note naming ow_oddcfa's row: $(head -c 600 "$TMPD/odd.err")"
fi
