#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_capture_empty.sh - what a capture that traced nothing says.  SIGTERM
# or SIGINT while it starts (loading the programs, building the unwind
# tables of -p's processes: seconds for a process mapping libLLVM) says it
# was interrupted before tracing started, not that the threads never went
# off CPU; it exits with 128 + the signal and writes nothing (no -o file
# made or replaced: issue 44), and -- CMD is not started.  -p on a
# process that never went off CPU while its children worked (nginx's
# master; here a stopped shell) names the children and the -p list that
# traces them.  Needs root and BPF (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
can_capture capture_empty || exit 0

if ! cc -O1 -g -fno-omit-frame-pointer -o "$TMPD/sleeper" "$TOP/tests/workloads/sleeper.c" 2> "$TMPD/cc.err"; then
	fail capture_empty_build "$(head -c 200 "$TMPD/cc.err")"
	exit 0
fi
PIDS=""
trap 'exec 9>&-; kill $PIDS 2> /dev/null; kill -CONT $PIDS 2> /dev/null; rm -rf "$TMPD"' EXIT

# A -p process whose tables take long to build (clang maps libLLVM and
# libclang-cpp): start-up lasts seconds, so the signal surely comes before
# tracing starts.  It reads a FIFO we hold open (closed: it ends).
# Without clang, a sleeper (start-up: loading only).
if command -v clang > /dev/null && mkfifo "$TMPD/cin"; then
	clang -E -x c - < "$TMPD/cin" > /dev/null 2>&1 &
	exec 9> "$TMPD/cin"
	for _ in $(seq 100); do BIG=$(pgrep -n -x clang -P $$) && break; sleep 0.05; done
fi
if [ -z "${BIG:-}" ]; then
	"$TMPD/sleeper" 120 & BIG=$!
fi
PIDS="$PIDS $BIG"

# catching SIG PID: wait until PID has its handler for signal number SIG
# (SigCgt), i.e. the capture has begun starting (a background job starts
# with SIGINT ignored: a signal before the handler would be lost)
catching() {
	local mask
	for _ in $(seq 6000); do	# up to 30 s: an ASan build at load 10
		mask=$(awk '/^SigCgt:/ { print $2 }' /proc/"$2"/status 2> /dev/null)
		[ -n "$mask" ] && [ $(( (0x$mask >> ($1 - 1)) & 1 )) = 1 ] && return 0
		sleep 0.005
	done
	return 1
}
# interrupted NAME SIGNAL WANT_STATUS OPTIONS...: the capture, signalled as
# soon as it handles the signal, says so and exits with WANT_STATUS
interrupted() {
	local name=$1 sig=$2 want=$3 ow st; shift 3
	"$OFFWAKE" -q "$@" > "$TMPD/$name.out" 2> "$TMPD/$name.err" & ow=$!
	if ! catching "$(kill -l "$sig")" $ow; then
		kill -9 $ow 2> /dev/null; wait $ow 2> /dev/null
		fail "$name" "the capture did not take SIG$sig within 30 s"
		return
	fi
	kill -"$sig" $ow
	wait $ow; st=$?
	if [ $st -eq "$want" ] &&
	   grep -q "^offwake-svg: interrupted (SIG$sig) before tracing started: nothing was traced\$" "$TMPD/$name.err" &&
	   ! grep -q 'never went off CPU' "$TMPD/$name.err"; then
		pass "$name"
	else
		fail "$name" "status $st: $(head -c 300 "$TMPD/$name.err")"
	fi
}
interrupted empty_sigterm_at_start TERM 143 -p "$BIG" -o "$TMPD/int.svg" 30
if [ ! -e "$TMPD/int.svg" ]; then
	pass empty_sigterm_no_svg
else
	fail empty_sigterm_no_svg "an SVG was made though nothing was traced: $(head -c 200 "$TMPD/int.svg")"
fi
interrupted empty_sigint_at_start INT 130 -f -p "$BIG" 30
[ ! -s "$TMPD/empty_sigint_at_start.out" ] || fail empty_sigint_no_output "$(head -c 200 "$TMPD/empty_sigint_at_start.out")"
# -- CMD interrupted while starting: CMD never runs
interrupted empty_sigint_cmd INT 130 -f -- sh -c ": > $TMPD/cmd-ran"
sleep 0.2
if [ ! -e "$TMPD/cmd-ran" ]; then
	pass empty_sigint_cmd_not_run
else
	fail empty_sigint_cmd_not_run "CMD ran after the capture was interrupted while starting"
fi

# A stopped parent (it never goes off CPU while stopped) whose two
# children sleep: the message names them and the -p list that traces
# them, and that list does.
sh -c "$TMPD/sleeper 60 & $TMPD/sleeper 60 & kill -STOP \$\$; wait" & SH=$!
PIDS="$PIDS $SH"
for _ in $(seq 200); do
	[ "$(awk '{ print $3 }' /proc/$SH/stat 2> /dev/null)" = T ] &&
		[ "$(pgrep -P $SH | wc -l)" = 2 ] && break
	sleep 0.02
done
read -r C1 C2 <<< "$(pgrep -P $SH | sort -n | tr '\n' ' ')"
PIDS="$PIDS $C1 $C2"
"$OFFWAKE" -f -q -p $SH 1 > "$TMPD/par.f" 2> "$TMPD/par.err"; st=$?
if [ $st -eq 0 ] && [ ! -s "$TMPD/par.f" ] && grep -q 'never went off CPU' "$TMPD/par.err" &&
   grep -q "^offwake-svg: note: process $SH (sh) has 2 child processes, not traced by -p: $C1 (ow_sleep), $C2 (ow_sleep); -p $SH,$C1,$C2 traces them too (--follow adds only the ones it starts during the capture)\$" "$TMPD/par.err"; then
	pass empty_parent_names_children
else
	fail empty_parent_names_children "status $st, children $C1 $C2: $(head -c 400 "$TMPD/par.err")"
fi
"$OFFWAKE" -f -q --group process -p $SH,$C1,$C2 1 > "$TMPD/kids.f" 2> /dev/null
if grep -q "^ow_sleep-$C1;.*do_nanosleep" "$TMPD/kids.f" && grep -q "^ow_sleep-$C2;.*do_nanosleep" "$TMPD/kids.f"; then
	pass empty_parent_suggestion_works
else
	fail empty_parent_suggestion_works "$(cut -d';' -f1 "$TMPD/kids.f" | sort -u | tr '\n' ' ')"
fi
kill $C1 $C2 2> /dev/null
kill -CONT $SH 2> /dev/null
