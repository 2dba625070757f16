#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_capture_cli.sh - the capture command line as offwaketime's users know
# it: one-letter options are offwaketime's only (a letter it lacks is an
# error naming it, never a render option's abbreviation), render options
# by their full names, argparse's abbreviations of our own long options,
# short errors pointing at --help, --help listing the commands, bcc's
# --state meaning (any bit), a capture that matched nothing saying why,
# and the stated duration being the traced one.  The capture cases need
# root and BPF (SKIP otherwise).
. "$(dirname "$0")/lib.sh"

# usage errors: exit 2, the offending word named, no render usage flood
usage_case() {
	local name=$1 want=$2; shift 2
	timeout 20 "$OFFWAKE" "$@" > "$TMPD/out" 2> "$TMPD/err"; local st=$?
	if [ $st -eq 2 ] && grep -q -- "$want" "$TMPD/err" && [ "$(wc -l < "$TMPD/err")" -le 3 ] &&
	   grep -q -- "--help" "$TMPD/err"; then
		pass "$name"
	else
		fail "$name" "status $st: $(head -c 300 "$TMPD/err")"
	fi
}
usage_case cli_letter_s "unrecognized arguments: -s" -s 5
usage_case cli_letter_c "unrecognized arguments: -c" -f -c 1
usage_case cli_letter_n "unrecognized arguments: -n" -n 1
usage_case cli_letter_r "unrecognized arguments: -r" -r 1
usage_case cli_render_abbrev "unrecognized arguments: --sub" --sub x 5
usage_case cli_ambiguous "ambiguous option: --s could match" --s 5
usage_case cli_bad_long "unrecognized arguments: --bogus" --bogus 5
usage_case cli_render_bad_value "width" --width=abc 5

# maps that would not fit the machine are refused before tracing, with
# the memory they would need (2147483647 slots took 16 GiB silently)
if [ "$(id -u)" = 0 ]; then
	for c in "cli_storage_too_big|stack-storage-size 2147483647: its map would take 16.0 GiB|--stack-storage-size 2147483647" \
		 "cli_unwind_memory_too_big|unwind-memory 65536: 64.0 GiB|--unwind-memory 65536"; do
		IFS='|' read -r name want opt <<< "$c"
		# shellcheck disable=SC2086
		timeout 20 "$OFFWAKE" $opt 1 > "$TMPD/out" 2> "$TMPD/err"; st=$?
		if [ $st -eq 2 ] && grep -q -- "$want" "$TMPD/err" && [ ! -s "$TMPD/out" ]; then
			pass "$name"
		else
			fail "$name" "status $st: $(head -c 300 "$TMPD/err")"
		fi
	done
fi

"$OFFWAKE" --help > "$TMPD/help" 2>&1
if grep -qE '^  render ' "$TMPD/help" && grep -qE '^  diff ' "$TMPD/help" &&
   grep -qE '^  unfold ' "$TMPD/help" && grep -q '^examples:' "$TMPD/help"; then
	pass cli_help_commands
else
	fail cli_help_commands "no commands/examples in --help"
fi

if [ "$(id -u)" != 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip cli_capture "needs root and kernel BTF"
	exit 0
fi
if ! cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/pingpong" \
	"$TOP/tests/workloads/pingpong.c" 2> "$TMPD/cc.err"; then
	fail cli_build "$(head -c 200 "$TMPD/cc.err")"
	exit 0
fi
"$TMPD/pingpong" 150 "$TMPD/tids" & PP=$!
trap 'kill $PP 2>/dev/null; rm -rf "$TMPD"' EXIT
for _ in $(seq 50); do [ -s "$TMPD/tids" ] && break; sleep 0.1; done

# render options by their full names, our long options abbreviated
if "$OFFWAKE" -p $PP --subtitle=cli-sub --stack 4096 -o "$TMPD/sub.svg" 1 2> "$TMPD/sub.err" &&
   grep -q 'cli-sub' "$TMPD/sub.svg"; then
	pass cli_full_render_name
else
	fail cli_full_render_name "$(head -c 300 "$TMPD/sub.err")"
fi

# --state 3 = 1|2 (bcc: any bit): the pipe reads (interruptible) are in
"$OFFWAKE" -f -p $PP --state 3 1 > "$TMPD/st3" 2> /dev/null
if grep -q '^ow_pong;.*anon_pipe_read' "$TMPD/st3"; then
	pass cli_state_any_bit
else
	fail cli_state_any_bit "--state 3 captured no interruptible sleep"
fi

# nothing matched: why, on stderr; a valid SVG that says so; exit 2
"$OFFWAKE" -p $PP -m 100000000 -o "$TMPD/none.svg" 1 2> "$TMPD/none.err"; st=$?
if [ $st -eq 2 ] &&
   grep -qE "no blocked time matched -p $PP -m 100000000 in [0-9.]+ s: the threads traced went off CPU [1-9][0-9]* times; [1-9][0-9]* blocks were shorter than -m" "$TMPD/none.err" &&
   ! grep -q 'flamegraph.pl\|No stack counts' "$TMPD/none.err" &&
   grep -q 'No blocked time matched' "$TMPD/none.svg" && ! grep -q flamegraph.pl "$TMPD/none.svg" &&
   { ! command -v xmllint > /dev/null || xmllint --noout "$TMPD/none.svg"; }; then
	pass cli_nothing_matched
else
	fail cli_nothing_matched "status $st: $(head -c 400 "$TMPD/none.err")"
fi
"$OFFWAKE" -f -p $PP --state 2 1 > "$TMPD/none.f" 2> "$TMPD/none2.err"; st=$?
if [ $st -eq 0 ] && [ ! -s "$TMPD/none.f" ] &&
   grep -qE '[1-9][0-9]* switches in other states \(--state\)' "$TMPD/none2.err"; then
	pass cli_nothing_matched_state
else
	fail cli_nothing_matched_state "status $st: $(head -c 300 "$TMPD/none2.err")"
fi

# the stated duration is the traced one: ow_pong is blocked nearly all the
# time, so its blocked time is at most the duration the subtitle states,
# and that is the DURATION asked (a loaded machine once traced 6.4 s for
# "3 s": loading was traced too; and a busy main loop overshot the end)
"$OFFWAKE" -p $PP -o "$TMPD/d.svg" 2 2> /dev/null
secs=$(grep -o '[0-9.]* s, Linux' "$TMPD/d.svg" | head -1 | cut -d' ' -f1)
us=$(grep -o '<title>ow_pong ([0-9,]* us' "$TMPD/d.svg" | head -1 | tr -dc 0-9)
if [ -n "$secs" ] && [ -n "$us" ] &&
   awk -v s="$secs" -v u="$us" 'BEGIN { exit !(s >= 1.95 && s <= 2.1 && u >= 1.0e6 && u <= s * 1.01e6) }'; then
	pass "cli_duration_true (subtitle $secs s, ow_pong blocked $us us)"
else
	fail cli_duration_true "subtitle '$secs' s, ow_pong blocked '$us' us in a 2 s capture"
fi

# -- CMD: started once tracing runs, followed to what it starts (ow_pong is
# a grandchild here), nothing else traced (ow_sleep runs beside it), its
# output not mixed into ours, its failure in our exit status.
if cc -O1 -g -fno-omit-frame-pointer -o "$TMPD/sleeper" "$TOP/tests/workloads/sleeper.c" 2> /dev/null; then
	"$TMPD/sleeper" 30 & SL=$!
	"$OFFWAKE" -f -q -- sh -c "echo cmd-says-hi; $TMPD/pingpong 2 $TMPD/t2; exit 0" \
		> "$TMPD/cmd" 2> "$TMPD/cmd.err"; st=$?
	kill $SL 2> /dev/null
	if [ $st -eq 0 ] && grep -q '^ow_pong;.*anon_pipe_read' "$TMPD/cmd" && ! grep -q '^ow_sleep;' "$TMPD/cmd" &&
	   ! grep -q cmd-says-hi "$TMPD/cmd" && grep -q cmd-says-hi "$TMPD/cmd.err"; then
		pass cli_cmd_traced_alone
	else
		fail cli_cmd_traced_alone "status $st, $(cut -d';' -f1 "$TMPD/cmd" | sort -u | tr '\n' ' ')"
	fi
else
	fail cli_cmd_traced_alone "cannot build sleeper.c"
fi
"$OFFWAKE" -f -q -- sh -c 'sleep 0.2; exit 3' > /dev/null 2>&1; st=$?
"$OFFWAKE" -f -q -- "$TMPD/no-such-command" > /dev/null 2> "$TMPD/nocmd.err"; st2=$?
if [ $st -eq 3 ] && [ $st2 -eq 127 ] && grep -q 'no-such-command: No such file' "$TMPD/nocmd.err"; then
	pass cli_cmd_exit_status
else
	fail cli_cmd_exit_status "exit 3 gave $st, a missing command $st2"
fi
# the subtitle names -- CMD by its command line (as a shell reads it back,
# cut to 60 bytes with "..."), not only by its pid
"$OFFWAKE" -q -o "$TMPD/cmd.svg" -- sh -c 'sleep 0.2; exit 0' 2> /dev/null
# (a command that runs: one that fails at once may block nowhere, and an
# empty capture's SVG has no subtitle)
"$OFFWAKE" -q -o "$TMPD/cmd2.svg" -- sh -c 'sleep 0.2' "$(printf 'x%.0s' $(seq 80))" 2> /dev/null
sub=$(grep -o '<text id="subtitle"[^>]*>[^<]*' "$TMPD/cmd.svg" | sed 's/.*>//')
sub2=$(grep -o '<text id="subtitle"[^>]*>[^<]*' "$TMPD/cmd2.svg" | sed 's/.*>//')
if [[ $sub == "sh -c &apos;sleep 0.2; exit 0&apos; (PID "[0-9]*"), "* || $sub == "sh -c 'sleep 0.2; exit 0' (PID "[0-9]*"), "* ]] &&
   [[ $sub2 == "sh -c "*"sleep 0.2"*" xxxxx"*"x... (PID "[0-9]*"), "* ]] && [ "${#sub2}" -lt 140 ]; then
	pass cli_cmd_subtitle
else
	fail cli_cmd_subtitle "subtitles: '$sub' and '$sub2'"
fi
# --text: a preempted block (two spinners sharing one CPU) says so on its
# waker line, never "waker: 0"
taskset -c 0 sh -c 'while :; do :; done' & S1=$!
taskset -c 0 sh -c 'while :; do :; done' & S2=$!
"$OFFWAKE" -q --text -p $S1,$S2 1 > "$TMPD/pre.txt" 2> "$TMPD/pre.err"; st=$?
kill $S1 $S2 2> /dev/null; wait $S1 $S2 2> /dev/null
if grep -q '^    waker:           none: preempted (runnable, no wakeup)$' "$TMPD/pre.txt" &&
   ! grep -qE '^    waker: +[0-9]*$' "$TMPD/pre.txt"; then
	pass cli_text_preempted
else
	fail cli_text_preempted "status $st, $(wc -l < "$TMPD/pre.txt") lines: $(grep -m3 'waker:' "$TMPD/pre.txt" | tr '\n' '|') stderr: $(head -c 400 "$TMPD/pre.err")"
fi
usage_case cli_cmd_with_pid "not allowed with argument -p/--pid" -p 1 -- true
usage_case cli_follow_needs_pid "argument --follow: needs -p" --follow 1

# --follow: the children a -p process starts during the capture; without
# --follow they are not traced.  (Each shell waits at a gate until its
# capture is attached: loading takes a second or more on a busy machine.)
follow_case() {	# OUT [--follow]
	local out=$1 sh ow; shift
	mkfifo "$TMPD/gate.$out"
	sh -c "read x < $TMPD/gate.$out; $TMPD/pingpong 1 $TMPD/tids.$out; true" & sh=$!
	"$OFFWAKE" -f -q -p $sh "$@" 4 > "$TMPD/$out" 2> "$TMPD/$out.err" & ow=$!
	attached $ow
	echo go > "$TMPD/gate.$out"
	wait $ow $sh
}
follow_case fol --follow
follow_case nofol
if grep -q '^ow_pong;.*anon_pipe_read' "$TMPD/fol" && ! grep -q '^ow_pong;' "$TMPD/nofol" &&
   grep -q '^sh;' "$TMPD/nofol"; then
	pass cli_follow_children
else
	fail cli_follow_children "with --follow: $(cut -d';' -f1 "$TMPD/fol" | sort -u | tr '\n' ' '); without: $(cut -d';' -f1 "$TMPD/nofol" | sort -u | tr '\n' ' ') (its stderr: $(head -c 400 "$TMPD/nofol.err"))"
fi

# --group: the bottom frame (and the waker's) names its process or thread
"$OFFWAKE" -f -q --group thread -p $PP 1 > "$TMPD/gt" 2> /dev/null
"$OFFWAKE" -q --group process -p $PP -o "$TMPD/gp.svg" 1 2> /dev/null
read -r PING PONG < "$TMPD/tids"
if grep -q "^ow_pong-$PP/$PONG;.*anon_pipe_read;.*;ow_ping-$PP/$PING [0-9]*\$" "$TMPD/gt" &&
   grep -q "<title>ow_pong-$PP (" "$TMPD/gp.svg" && ! grep -q '<title>ow_pong (' "$TMPD/gp.svg"; then
	pass cli_group
else
	fail cli_group "$(head -c 200 "$TMPD/gt")"
fi
usage_case cli_group_bad "invalid choice: 'pid'" --group pid 1
