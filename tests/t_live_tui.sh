#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_live_tui.sh - the terminal live view (--live, issue 32 item 1), driven
# in tmux (a server of its own, an 80x24 window; send-keys, capture-pane)
# against tests/workloads/alternate.c run as -- CMD: its thread ow_alt
# blocks in alt_wait_a() (woken from alt_wake_a()) for 4 s, then in
# alt_wait_b() for 4 s, and so on.  Checked: the threads show, the screen
# fits 80x24; "f" follows the hottest path to the "--" and, again, to the
# waker; after a switch of paths the new one is above the old within two
# intervals (a since-start order would keep the old one above: it has
# 4 s to the new one's 2 at most), both ways; "v" cycles the three views;
# search finds a waker's frame and says which match; space freezes the
# rows while the capture goes on and thaws them; "w" writes the profile
# now (folded and SVG, by the extension) and the capture goes on; "q" ends
# the capture and writes the output (-o), exit status 0.  Without a
# terminal, or with TERM=dumb, --live refuses in one line, exit 2; bad
# --interval values are usage errors.  Asserts on stacks and order, never
# on timings (but for the two intervals, plus a second's slack on a noisy
# machine).
. "$(dirname "$0")/lib.sh"
WL=$(cd "$(dirname "$0")/workloads" && pwd)

bad() {	# NAME EXPECTED-MESSAGE ARGS...
	local n=$1 msg=$2 out st
	shift 2
	out=$("$OFFWAKE" "$@" 2>&1); st=$?
	if [ $st -eq 2 ] && grep -qF -- "$msg" <<<"$out" && [ "$(wc -l <<<"$out")" -le 2 ]; then
		pass "$n"
	else
		fail "$n" "status $st: $out"
	fi
}
bad live_interval_zero "offwake-svg: error: --interval: expected seconds (> 0, at most 3600): '0'" --interval 0 1
bad live_interval_word "offwake-svg: error: --interval: expected seconds (> 0, at most 3600): '1s'" --interval 1s 1
bad live_interval_big "offwake-svg: error: --interval: expected seconds (> 0, at most 3600): '3601'" --interval=3601 1
bad live_interval_missing "offwake-svg: error: argument --interval: expected one argument" --interval
# no terminal at all (a new session has no controlling terminal), and a
# dumb one: one line naming the problem, exit status 2, before any capture
out=$(setsid "$OFFWAKE" --live 1 < /dev/null 2>&1); st=$?
if [ $st -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q -- '--live: no terminal' <<<"$out"; then
	pass live_no_terminal
else
	fail live_no_terminal "status $st: $out"
fi

if ! command -v tmux > /dev/null; then
	skip live_tui "no tmux"
	exit 0
fi
T=(tmux -L "owtest$$" -f /dev/null)
cleanup() {
	"${T[@]}" kill-server 2> /dev/null
	[ -n "${WPID:-}" ] && kill "$WPID" 2> /dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT
pane() { "${T[@]}" capture-pane -p -t live; }
# wait_for SECONDS PATTERN: until the screen has a line matching PATTERN
wait_for() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -le $end ]; do
		pane | grep -qE -- "$2" && return 0
		sleep 0.2
	done
	return 1
}
keys() { "${T[@]}" send-keys -t live "$@"; sleep 0.4; }

# TERM=dumb in a real terminal: refused (the output to a file: standard
# output on the terminal is refused for an SVG before that)
"${T[@]}" new-session -d -x 80 -y 24 -s live \
	"TERM=dumb $OFFWAKE --live -o $TMPD/dumb.svg 1 2> $TMPD/dumb.err; echo \$? > $TMPD/dumb.st"
for _ in $(seq 50); do [ -s "$TMPD/dumb.st" ] && break; sleep 0.1; done
if [ "$(cat "$TMPD/dumb.st" 2> /dev/null)" = 2 ] && [ "$(wc -l < "$TMPD/dumb.err")" -eq 1 ] &&
   grep -q -- '--live: needs a terminal that can draw a screen, not TERM=dumb' "$TMPD/dumb.err"; then
	pass live_dumb_terminal
else
	fail live_dumb_terminal "status $(cat "$TMPD/dumb.st" 2> /dev/null): $(cat "$TMPD/dumb.err")"
fi
"${T[@]}" kill-server 2> /dev/null

can_capture live_tui || exit 0
if ! cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/alternate" "$WL/alternate.c"; then
	fail live_tui "cannot build the workload"
	exit 0
fi
ST=$TMPD/state
"${T[@]}" new-session -d -x 80 -y 24 -s live \
	"$OFFWAKE --live --interval 1 -o $TMPD/out.folded -- $TMPD/alternate 4 90 $ST 2> $TMPD/live.err; echo \$? > $TMPD/live.st"
if ! wait_for 60 '[+-]ow_alt$'; then
	fail live_tui "no ow_alt row in 60 s (loading under load): $(pane; cat "$TMPD/live.err")"
	exit 0
fi
WPID=$(awk '$1 == "pid" { print $2; exit }' "$ST")
pass live_shows_threads
pane > "$TMPD/p0"
if [ "$(wc -l < "$TMPD/p0")" -eq 24 ] && [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMPD/p0")" -le 80 ] &&
   head -1 "$TMPD/p0" | grep -q '^offwake-svg live  [0-9]* s  last interval (1.0 s)  .*alternate' &&
   sed -n 2p "$TMPD/p0" | grep -q 'interval *all *share *frame (us)' &&
   tail -1 "$TMPD/p0" | grep -q '^q quit .*w write'; then
	pass live_80x24
else
	fail live_80x24 "$(cat "$TMPD/p0")"
fi

# follow: the hottest path of ow_alt to the "--", then on to its waker
keys / o w _ a l t Enter
keys f
pane > "$TMPD/p1"
keys f
pane > "$TMPD/p2"
if grep -qE ' -alt_wait_[ab]$' "$TMPD/p1" && grep -qE '^ .* [+-]--$' "$TMPD/p1" &&
   ! grep -q 'alt_wake_' "$TMPD/p1"; then
	pass live_follow_blocked
else
	fail live_follow_blocked "$(cat "$TMPD/p1")"
fi
if grep -qE ' -alt_wake_[ab]$' "$TMPD/p2" && grep -qE ' -anon_pipe_write$' "$TMPD/p2" &&
   grep -qE '  ow_waker$' "$TMPD/p2"; then
	pass live_follow_waker
else
	fail live_follow_waker "$(cat "$TMPD/p2")"
fi

# the switch: the paths' rows under main, their order the interval's
keys / a l t _ w a i t _ a Enter
keys -	# closed: the rows of main's children fit
# order: "ab" when alt_wait_a's row is above alt_wait_b's (or alone)
order() { pane | grep -oE ' [+-]alt_wait_[ab]$' | sed 's/.*_//' | tr -d '\n'; }
switch_ok() {	# the next switch shows within two intervals (+1 s)
	local n new end
	n=$(wc -l < "$ST")
	for _ in $(seq 100); do [ "$(wc -l < "$ST")" -gt "$n" ] && break; sleep 0.1; done
	new=$(tail -1 "$ST" | cut -c1)
	end=$(($(date +%s%N) + 3000000000))
	while [ "$(date +%s%N)" -lt "$end" ]; do
		case $(order) in "$new"?) return 0 ;; esac
		sleep 0.1
	done
	echo "switch to $new not shown in 3 s: order $(order)"
	pane
	return 1
}
for i in 1 2; do
	if switch_ok > "$TMPD/sw$i" 2>&1; then
		pass live_switch_$i
	else
		fail live_switch_$i "$(cat "$TMPD/sw$i")"
	fi
done

# views: since start, decaying, back
keys v
t1=$(pane | head -1)
keys v
t2=$(pane | head -1)
keys v
t3=$(pane | head -1)
if [[ $t1 == *"  since start  "* && $t2 == *"  decaying  "* && $t3 == *"  last interval (1.0 s)  "* ]]; then
	pass live_views
else
	fail live_views "titles: $t1 / $t2 / $t3"
fi

# search: a waker's frame, found in a closed part, its match named
keys / A L T _ W A K E _ B Enter
if pane | grep -qE ' [+-]alt_wake_b$' && pane | tail -1 | grep -qE "^search 'ALT_WAKE_B': match 1 of [0-9]+$"; then
	pass live_search
else
	fail live_search "$(pane)"
fi
keys / n o _ s u c h _ f r a m e Enter
check live_search_none sh -c "tmux -L owtest$$ capture-pane -p -t live | tail -1 | grep -qF \"search 'no_such_frame': no match\""

# freeze: the rows stay while the capture goes on; thawed, they move
keys Space
pane > "$TMPD/f1"
n=$(wc -l < "$ST")
sleep 2.5
pane > "$TMPD/f2"
if head -1 "$TMPD/f1" | grep -qF '[FROZEN]' && cmp -s "$TMPD/f1" "$TMPD/f2"; then
	pass live_freeze
else
	fail live_freeze "$(diff "$TMPD/f1" "$TMPD/f2"; head -1 "$TMPD/f1")"
fi
keys Space
sleep 2.5
pane > "$TMPD/f3"
if ! head -1 "$TMPD/f3" | grep -qF '[FROZEN]' && ! cmp -s "$TMPD/f2" "$TMPD/f3"; then
	pass live_thaw
else
	fail live_thaw "$(cat "$TMPD/f3")"
fi

# write now, by the extension's format; the capture goes on
keys w
"${T[@]}" send-keys -t live -l "$TMPD/now.folded"
keys Enter
keys w
"${T[@]}" send-keys -t live -l "$TMPD/now.svg"
keys Enter
wait_for 20 "wrote $TMPD/now.svg"	# a large SVG takes a while
if grep -qE '^ow_alt;.*alt_wait_a;.*;--;.*alt_wake_a;.*ow_waker [0-9]+$' "$TMPD/now.folded" 2> /dev/null &&
   grep -q '<svg' "$TMPD/now.svg" 2> /dev/null && grep -q 'alt_wait_b' "$TMPD/now.svg" &&
   pane | tail -1 | grep -qF "wrote $TMPD/now.svg (svg)" && [ ! -e "$TMPD/live.st" ]; then
	pass live_write
else
	fail live_write "$(ls -la "$TMPD"; pane | tail -1)"
fi
sleep 1.5
if [ ! -e "$TMPD/live.st" ] && [ ! -e "$TMPD/out.folded" ]; then
	pass live_write_goes_on
else
	fail live_write_goes_on "the capture ended: $(cat "$TMPD/live.err")"
fi

# quit: the output is written as Ctrl-C writes it
keys q
for _ in $(seq 150); do [ -s "$TMPD/live.st" ] && break; sleep 0.1; done
if [ "$(cat "$TMPD/live.st" 2> /dev/null)" = 0 ] &&
   grep -qE '^ow_alt;.*alt_wait_a;.*alt_wake_a;.*ow_waker [0-9]+$' "$TMPD/out.folded" &&
   grep -qE '^ow_alt;.*alt_wait_b;.*alt_wake_b;.*ow_waker [0-9]+$' "$TMPD/out.folded"; then
	pass live_quit_writes
else
	fail live_quit_writes "status $(cat "$TMPD/live.st" 2> /dev/null): $(cat "$TMPD/live.err"; ls -la "$TMPD")"
fi
