#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_harden_trial.sh - what a newcomer's trial found (issue 44, item 11):
# -f prints one line per distinct folded stack (keys that differ only in
# pids summed), in offwaketime -f's line format; -o FILE with an
# extension no writer has is refused before tracing, not written as an
# SVG; an SVG (or pprof, speedscope) is not written to a terminal; a
# block whose task slept but whose wakeup was not seen is labelled so,
# not drawn as a preemption (which keeps its empty waker).  The capture
# cases need root and BPF (SKIP otherwise).
. "$(dirname "$0")/lib.sh"

# -o x.pdf (no --format, -f, --text): refused before any loading, one
# line naming the file and the extensions there are; nothing written
for f in x.pdf x.png out.svg.tmp; do
	(cd "$TMPD" && timeout 20 "$OFFWAKE" -o "$f" 1 > out 2> err); st=$?
	if [ $st -eq 2 ] && [ "$(wc -l < "$TMPD/err")" -eq 1 ] && [ ! -e "$TMPD/$f" ] &&
	   grep -q "^offwake-svg: -o $f: no format writes \.[a-z]* files (name it \*\.svg, \*\.folded, \*\.pb\.gz, \*\.speedscope\.json, \*\.perfetto-trace, or give --format or -f)\$" "$TMPD/err"; then
		pass "trial_o_unknown_ext_refused ($f)"
	else
		fail "trial_o_unknown_ext_refused ($f)" "status $st, $(ls "$TMPD/$f" 2>&1): $(head -c 300 "$TMPD/err")"
	fi
done

# to a terminal: an SVG, pprof, speedscope refused (exit 2, one line,
# before tracing); folded lines are not (-h: no capture needed to tell)
if command -v script > /dev/null; then
	for a in "" "--format pprof" "--format speedscope"; do
		# shellcheck disable=SC2086
		script -qec "timeout 20 $OFFWAKE $a 1 2> $TMPD/tty.err" /dev/null > "$TMPD/tty.out"; st=$?
		if [ $st -eq 2 ] && [ "$(wc -l < "$TMPD/tty.err")" -eq 1 ] &&
		   grep -q '^offwake-svg: standard output is a terminal: not writing .* output there (use -o FILE\..*, -f for folded lines, or redirect it)$' "$TMPD/tty.err" &&
		   ! grep -q '<svg\|schema' "$TMPD/tty.out"; then
			pass "trial_no_svg_to_tty (${a:-svg})"
		else
			fail "trial_no_svg_to_tty (${a:-svg})" "status $st: $(head -c 300 "$TMPD/tty.err")"
		fi
	done
else
	skip trial_no_svg_to_tty "no script(1)"
fi

can_capture trial_capture || exit 0

# -f: one line per distinct folded stack.  40 processes block reading a
# pipe at 5 depths (8 each, same stacks, same waker), so offwaketime-
# style per-key lines would print each stack 8 times; the lines are the
# distinct stacks, each once, their counts summed.  The format is
# offwaketime -f's: an empty field between user and kernel frames (bcc's
# line += [""] without -d), "--" between target and waker
cat > "$TMPD/owfs.c" <<'EOF'
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define DEPTHS 5
#define PER 8
static int __attribute__((noinline)) lvl(int fd, int d)
{
	char c;

	if (d > 0)
		return lvl(fd, d - 1) + 1;
	while (read(fd, &c, 1) == 1)
		;
	return 0;
}
int main(int argc, char **argv)
{
	int fds[DEPTHS * PER][2];
	struct timespec t0, t, ms = { 0, 5000000 };
	double secs = atof(argv[1]);

	for (int i = 0; i < DEPTHS * PER; i++) {
		if (pipe(fds[i]))
			return 1;
		if (!fork()) {
			close(fds[i][1]);
			prctl(PR_SET_NAME, "owfs_child");
			return lvl(fds[i][0], i % DEPTHS) & 0;
		}
		close(fds[i][0]);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < DEPTHS * PER; i++)
			if (write(fds[i][1], "x", 1) != 1)
				return 1;
		nanosleep(&ms, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	for (int i = 0; i < DEPTHS * PER; i++)
		close(fds[i][1]);
	while (wait(NULL) > 0)
		;
	return 0;
}
EOF
if ! cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$TMPD/owfs" "$TMPD/owfs.c" 2> "$TMPD/cc.err"; then
	fail trial_build "$(head -c 200 "$TMPD/cc.err")"
	exit 0
fi
cap fs -q -- "$TMPD/owfs" 2; st=$?
lines=$(wc -l < "$TMPD/fs")
dups=$(sed 's/ [0-9.]*$//' "$TMPD/fs" | sort | uniq -d | wc -l)
child=$(grep -c '^owfs_child;.*;lvl;read;' "$TMPD/fs")
if [ $st -eq 0 ] && [ "$lines" -gt 0 ] && [ "$dups" -eq 0 ] && [ "$child" -ge 1 ] &&
   [ "$child" -lt 40 ]; then
	pass "trial_folded_line_per_stack ($lines lines, none twice; $child of the children's read stacks)"
else
	fail trial_folded_line_per_stack "status $st, $lines lines, $dups printed more than once, $child children's read lines: $(head -c 300 "$TMPD/fs.err")"
fi
# offwaketime -f's fields: target;user...;"";kernel...;--;waker kernel
# (leaf first);"";waker user;waker
if grep -qE '^owfs_child;_start;.*;main;lvl;read;entry_SYSCALL_64[^;]*;.*;anon_pipe_read;schedule;__schedule;--;[^;]+;.*;([^;]+;)*owfs [0-9]+$' "$TMPD/fs" &&
   ! grep -qE ';;;' "$TMPD/fs"; then
	pass trial_folded_offwaketime_format
else
	fail trial_folded_offwaketime_format "$(grep -m1 '^owfs_child;.*anon_pipe_read' "$TMPD/fs" | head -c 400)"
fi

# A block whose task slept but whose wakeup was not seen is labelled so,
# not drawn as a preemption: a sleeper in cgroup in/ is traced there
# (--cgroup in), then moved to out/ while it sleeps; its timer's wakeup,
# of a task now outside, is not recorded, and its block ends without a
# waker.  A CPU-bound loop in in/ is preempted (runnable, no wakeup):
# its blocks keep the empty waker of a preemption.
MNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CG=${MNT:+$MNT/offwake-trial.$$}
if [ -z "$MNT" ] || ! mkdir -p "$CG/in" "$CG/out" 2> "$TMPD/mkdir.err"; then
	skip trial_unseen_waker_label "no cgroup2 mount to make a cgroup under: $(head -c 200 "$TMPD/mkdir.err" 2> /dev/null)"
	exit 0
fi
cg_cleanup() {
	[ -n "${SPIN:-}" ] && kill "$SPIN" 2> /dev/null && wait "$SPIN" 2> /dev/null
	for p in $(cat "$CG/in/cgroup.procs" "$CG/out/cgroup.procs" 2> /dev/null); do
		echo "$p" > "$MNT/cgroup.procs"
	done 2> /dev/null
	rmdir "$CG/in" "$CG/out" "$CG" 2> /dev/null
	rm -rf "$TMPD"
}
trap cg_cleanup EXIT
"$OFFWAKE" -f -q --cgroup "$CG/in" > "$TMPD/uw" 2> "$TMPD/uw.err" & CAP=$!
if attached $CAP; then
	sh -c "echo \$\$ > '$CG/in/cgroup.procs' && exec sleep 2" & SLP=$!
	sh -c "echo \$\$ > '$CG/in/cgroup.procs' && exec timeout 2 sh -c 'while :; do :; done'" & SPIN=$!
	sleep 1
	echo $SLP > "$CG/out/cgroup.procs"
	wait $SLP $SPIN
	SPIN=
	kill -INT $CAP
fi
wait $CAP; st=$?
if [ $st -eq 0 ] && grep -qE '^sleep;.*nanosleep.*;--;\[waker not seen\] [0-9]+$' "$TMPD/uw" &&
   ! grep -qE '^sleep;.*nanosleep.*;--; [0-9]+$' "$TMPD/uw"; then
	pass trial_unseen_waker_label
else
	fail trial_unseen_waker_label "status $st: $(grep -E '^sleep;.*nanosleep' "$TMPD/uw" | sed 's/.*;--;/--;/' | head -c 300) $(head -c 200 "$TMPD/uw.err")"
fi
if grep -qE '^sh;.*;--; [0-9]+$' "$TMPD/uw" && ! grep -qE '^sh;.*\[waker not seen\]' "$TMPD/uw"; then
	pass trial_preemption_label_kept
else
	fail trial_preemption_label_kept "$(grep -E '^sh;' "$TMPD/uw" | sed 's/.*;--;/--;/' | sort | uniq -c | head -c 300)"
fi

# --cgroup: unwind tables only for the processes in the cgroup.  A sleeper
# (tests/workloads/sleeper.c, woken by the timer interrupt: no waker's
# user stack to walk) in in/, and outside it a shell exec'ing programs all
# along: their execs and forks are not the cgroup's.  The summary counts
# tables for 1 process, no more files than the sleeper maps.  (Before:
# every exec and fork on the machine queued tables, "--cgroup G builds
# unwind tables for processes outside G", 193 in the trial's capture.)
if ! cc -O1 -g -o "$TMPD/ow_sleep" "$TOP/tests/workloads/sleeper.c" 2> "$TMPD/cc.err"; then
	fail trial_cgroup_tables_build "$(head -c 200 "$TMPD/cc.err")"
	exit 0
fi
sh -c "echo \$\$ > '$CG/in/cgroup.procs' && exec '$TMPD/ow_sleep' 20" & SPIN=$!
sleep 0.2	# (its libraries mapped: the files it has code in)
mapped=$(awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' /proc/$SPIN/maps | sort -u | wc -l)
( end=$((SECONDS + 8)); while [ $SECONDS -lt $end ]; do
	sh -c 'cat /proc/self/stat > /dev/null; ls / > /dev/null'
done ) & EXECS=$!
"$OFFWAKE" -f --cgroup "$CG/in" 3 > "$TMPD/tb" 2> "$TMPD/tb.err"; st=$?
kill $EXECS 2> /dev/null
wait $EXECS 2> /dev/null
read -r files procs < <(sed -n 's/.*unwind tables: \([0-9]*\) files (\([0-9]*\) process.*/\1 \2/p' "$TMPD/tb.err")
if [ $st -eq 0 ] && [ "${procs:-x}" = 1 ] && [ "${files:-99}" -le "$mapped" ] &&
   grep -q '^ow_sleep;.*do_nanosleep' "$TMPD/tb"; then
	pass "trial_cgroup_tables_inside_only ($files files, $procs process)"
else
	fail trial_cgroup_tables_inside_only "status $st, ${files:-?} files for ${procs:-?} processes (want 1, at most $mapped files): $(grep 'unwind tables' "$TMPD/tb.err" | head -c 300)"
fi
