#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_capture_cgroup.sh - --cgroup PATH: only the tasks in that cgroup v2 and
# its descendants, filtered in the kernel.  A test cgroup (with a child
# cgroup) is made under the cgroup2 mount (mounted here when none is);
# one sleeper is moved into the child cgroup, another stays outside:
# the capture has the first one's stacks and none of the second's; with
# -p the tasks both select; an empty cgroup's capture sees no switch at all
# (the kernel side dropped them before counting).  Paths that are not a
# cgroup v2 directory are refused with the reason.  The capture cases need
# root and BPF (SKIP otherwise).
. "$(dirname "$0")/lib.sh"

# bad paths: exit 2, one line naming the path and why, before any loading
bad_case() {	# NAME WANT PATH
	timeout 20 "$OFFWAKE" -f --cgroup "$3" 1 > "$TMPD/out" 2> "$TMPD/err"; local st=$?
	if [ $st -eq 2 ] && [ "$(wc -l < "$TMPD/err")" -eq 1 ] &&
	   grep -q -- "^offwake-svg: --cgroup $3: $2" "$TMPD/err" && [ ! -s "$TMPD/out" ]; then
		pass "$1"
	else
		fail "$1" "status $st: $(head -c 300 "$TMPD/err")"
	fi
}
bad_case cgroup_missing "No such file or directory" "$TMPD/no-such-cgroup"
bad_case cgroup_not_cgroup "not a cgroup v2 directory (not on a cgroup file system" "$TMPD"
: > "$TMPD/file"
bad_case cgroup_not_dir "not a cgroup v2 directory (not a directory" "$TMPD/file"

can_capture cgroup_capture || exit 0
MNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$MNT" ]; then
	MNT=$TMPD/cg2
	mkdir -p "$MNT"
	if ! mount -t cgroup2 none "$MNT" 2> "$TMPD/mount.err"; then
		skip cgroup_capture "no cgroup2 mount, and mounting one failed: $(head -c 200 "$TMPD/mount.err")"
		exit 0
	fi
	MOUNTED=1
fi
# a cgroup v1 hierarchy, where there is one (a hybrid system), is refused
V1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/self/mounts)
[ -n "$V1" ] && bad_case cgroup_v1 "not a cgroup v2 directory (a cgroup v1 hierarchy; cgroup v2 is mounted at " "$V1"

CG=$MNT/offwake-test.$$
if ! mkdir -p "$CG/inner" "$CG/empty" 2> "$TMPD/mkdir.err"; then
	skip cgroup_capture "cannot make a cgroup under $MNT: $(head -c 200 "$TMPD/mkdir.err")"
	[ -n "${MOUNTED:-}" ] && umount "$MNT"
	exit 0
fi
if ! cc -O1 -g -fno-omit-frame-pointer -o "$TMPD/sleeper" "$TOP/tests/workloads/sleeper.c" 2> "$TMPD/cc.err"; then
	fail cgroup_build "$(head -c 200 "$TMPD/cc.err")"
	rmdir "$CG/inner" "$CG/empty" "$CG"
	exit 0
fi
"$TMPD/sleeper" 60 & IN=$!
"$TMPD/sleeper" 60 & OUT=$!
cleanup() {
	kill $IN $OUT 2> /dev/null
	wait $IN $OUT 2> /dev/null
	rmdir "$CG/inner" "$CG/empty" "$CG" 2> /dev/null
	[ -n "${MOUNTED:-}" ] && umount "$MNT"
	rm -rf "$TMPD"
}
trap cleanup EXIT
if ! echo $IN > "$CG/inner/cgroup.procs" 2> "$TMPD/move.err"; then
	skip cgroup_capture "cannot move a process into $CG/inner: $(head -c 200 "$TMPD/move.err")"
	exit 0
fi

# the sleeper inside (in a descendant of the cgroup asked for) is there
# with its nanosleep stacks and most of the 2 s blocked; the one outside,
# same program and comm, is not
"$OFFWAKE" -f -q --group process --cgroup "$CG" 2 > "$TMPD/cg.f" 2> "$TMPD/cg.err"; st=$?
in_us=$(awk -v p="ow_sleep-$IN;" 'index($0, p) == 1 && /do_nanosleep/ { s += $NF } END { print s + 0 }' "$TMPD/cg.f")
if [ $st -eq 0 ] && [ "$in_us" -ge 1000000 ] && ! grep -q "^ow_sleep-$OUT;" "$TMPD/cg.f"; then
	pass "cgroup_inside_only (inside: $in_us us blocked in 2 s)"
else
	fail cgroup_inside_only "status $st, inside $in_us us; processes: $(cut -d';' -f1 "$TMPD/cg.f" | sort -u | tr '\n' ' ') $(head -c 200 "$TMPD/cg.err")"
fi
# everything in the output is in the cgroup: the sleeper, or something it
# ran (nothing else is in it)
others=$(cut -d';' -f1 "$TMPD/cg.f" | sort -u | grep -v "^ow_sleep-$IN\$")
if [ -s "$TMPD/cg.f" ] && [ -z "$others" ]; then
	pass cgroup_nothing_else
else
	fail cgroup_nothing_else "outside the cgroup: $(echo $others | head -c 300)"
fi

# with -p: the tasks both select (the outside sleeper: none)
"$OFFWAKE" -f -q --cgroup "$CG" -p $IN,$OUT --group process 1 > "$TMPD/both.f" 2> /dev/null
"$OFFWAKE" -f -q --cgroup "$CG" -p $OUT 1 > "$TMPD/none.f" 2> "$TMPD/none.err"; st=$?
if grep -q "^ow_sleep-$IN;.*do_nanosleep" "$TMPD/both.f" && ! grep -q "^ow_sleep-$OUT;" "$TMPD/both.f" &&
   [ $st -eq 0 ] && [ ! -s "$TMPD/none.f" ] &&
   grep -q -- "no blocked time matched -p $OUT --cgroup $CG in .*never went off CPU" "$TMPD/none.err"; then
	pass cgroup_and_pid
else
	fail cgroup_and_pid "both: $(cut -d';' -f1 "$TMPD/both.f" | sort -u | tr '\n' ' '); -p outside: status $st, $(head -c 300 "$TMPD/none.err")"
fi

# an empty cgroup: the kernel side counts no switch at all
"$OFFWAKE" -f -q --cgroup "$CG/empty" 1 > "$TMPD/empty.f" 2> "$TMPD/empty.err"; st=$?
if [ $st -eq 0 ] && [ ! -s "$TMPD/empty.f" ] &&
   grep -q -- "no blocked time matched --cgroup $CG/empty in .*: the threads traced never went off CPU" "$TMPD/empty.err"; then
	pass cgroup_empty_filtered_in_kernel
else
	fail cgroup_empty_filtered_in_kernel "status $st: $(head -c 300 "$TMPD/empty.err")"
fi

# the SVG's subtitle says what was traced
"$OFFWAKE" -q --cgroup "$CG" -o "$TMPD/cg.svg" 1 2> /dev/null
if grep -q "all threads in cgroup $CG, " "$TMPD/cg.svg"; then
	pass cgroup_subtitle
else
	fail cgroup_subtitle "$(grep -o 'all threads[^<]*' "$TMPD/cg.svg" | head -1)"
fi
