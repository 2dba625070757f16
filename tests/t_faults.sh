#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_faults.sh - faults around the output and the capture that need no code
# changes to provoke:
#   - SIGPIPE/EPIPE on standard output: quiet, non-zero (render and capture);
#   - a full device: a message and a non-zero status;
#   - -o FILE into a missing directory, a non-directory or a full file system
#     leaves neither FILE nor a temporary file, says which FILE, and fails
#     before the capture rather than after it;
#   - -p with a PID that does not exist (or a thread's id), -t with a TID
#     that does not exist: a precise message, status 2, before tracing;
#   - -p with a process that exits during the capture: still an output, and
#     a note saying it exited;
#   - the live status line: on a terminal only, cleared, none with -q;
#   - SIGINT and SIGTERM during a capture with -o: a complete SVG, exit 0;
#   - after every capture, none of the BPF programs it loaded stays loaded
#     (their ids are read from /proc/PID/fdinfo while it runs, so other
#     captures running on the machine do not disturb the check).
# The capture checks need root and kernel BTF and SKIP otherwise.
. "$(dirname "$0")/lib.sh"
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}
cd "$TMPD" || exit 1

svgcheck faults > /dev/null || SVGCHECK=	# without it: only "ends in </svg>"
# quiet_stop NAME STATUS ERRFILE [MAX]: a non-zero status and nothing on
# stderr (MAX: bytes of stderr shown on failure, 200 unless given)
quiet_stop() {
	if [ "$2" -ne 0 ] && [ ! -s "$3" ]; then
		pass "$1"
	else
		fail "$1" "status $2, stderr: $(head -c "${4:-200}" "$3")"
	fi
}
svg_ok() {	# svg_ok FILE: a complete, well-formed SVG
	if [ -n "$SVGCHECK" ]; then "$SVGCHECK" -e "$1" 2> /dev/null
	else tail -c 200 "$1" | grep -q '</svg>'; fi
}

# ---- render: SIGPIPE, EPIPE, ENOSPC (no privileges) ---------------------
python3 -c 'import sys; sys.stdout.write("".join("main;f%d;g 1\n" % i for i in range(20000)))' \
	> big.folded 2>/dev/null || for i in $(seq 20000); do echo "main;f$i;g 1"; done > big.folded
"$OFFWAKE" render --minwidth=0 big.folded 2> pipe.err | head -c 10 > /dev/null
st=${PIPESTATUS[0]}
quiet_stop render_sigpipe_quiet "$st" pipe.err
# with SIGPIPE ignored (as under some shells and supervisors): EPIPE
(trap '' PIPE; "$OFFWAKE" render --minwidth=0 big.folded 2> epipe.err | head -c 10 > /dev/null
 exit "${PIPESTATUS[0]}")
st=$?
quiet_stop render_epipe_quiet "$st" epipe.err
if [ -w /dev/full ]; then
	"$OFFWAKE" render big.folded > /dev/full 2> full.err; st=$?
	if [ $st -ne 0 ] && grep -qi 'no space' full.err; then
		pass render_enospc
	else
		fail render_enospc "status $st, stderr: $(head -c 200 full.err)"
	fi
else
	skip render_enospc "no /dev/full"
fi
# a folded file that cannot be read (a directory): warned, others still read
mkdir -p adir
"$OFFWAKE" render adir big.folded > dir.svg 2> dir.err; st=$?
if [ $st -ne 0 ] && [ -s dir.err ] || { [ $st -eq 0 ] && grep -q adir dir.err && svg_ok dir.svg; }; then
	pass render_unreadable_input
else
	fail render_unreadable_input "status $st, stderr: $(head -c 200 dir.err)"
fi

# ---- capture ------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	skip faults_capture "needs root to load BPF programs"
	exit 0
fi
if [ ! -r /sys/kernel/btf/vmlinux ] || ! command -v bpftool > /dev/null; then
	skip faults_capture "needs kernel BTF and bpftool"
	exit 0
fi

# prog_ids PID: the ids of the BPF programs PID holds (one per line).
prog_ids() { grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u; }
# wait_armed PID: until capture PID is tracing (lib.sh's attached(): its
# links made, last of its start-up); prints the ids of its programs.
wait_armed() {
	attached "$1" && prog_ids "$1"
}
# gone NAME IDS: none of IDS is loaded any more.
gone() {
	local left=() id
	sleep 0.2	# the kernel frees programs shortly after the last fd closes
	for id in $2; do
		bpftool prog show id "$id" > /dev/null 2>&1 && left+=("$id")
	done
	if [ ${#left[@]} -eq 0 ]; then pass "$1"; else fail "$1" "BPF programs still loaded: ${left[*]}"; fi
}

# SIGINT / SIGTERM during a capture with -o: a complete SVG, exit 0
for sig in INT TERM; do
	rm -f sig.svg
	"$OFFWAKE" -o sig.svg 30 2> sig.err & P=$!
	if ids=$(wait_armed $P); then
		sleep 1
		kill -s $sig $P
		t0=$SECONDS
		wait $P; st=$?
		if [ $st -eq 0 ] && svg_ok sig.svg && [ $((SECONDS - t0)) -lt 20 ]; then
			pass "capture_sig$sig"
		else
			fail "capture_sig$sig" "status $st after $((SECONDS - t0)) s, SVG ok: $(svg_ok sig.svg && echo yes || echo no); $(head -c 200 sig.err)"
		fi
		ls sig.svg.* > /dev/null 2>&1 && fail "capture_sig${sig}_tmpfile" "temporary file left: $(ls sig.svg.*)" ||
			pass "capture_sig${sig}_tmpfile"
		gone "capture_sig${sig}_detached" "$ids"
	else
		kill $P 2>/dev/null; wait $P
		fail "capture_sig$sig" "not tracing within 60 s: $(head -c 300 sig.err)"
	fi
done

# SIGPIPE on standard output: quiet, non-zero, programs gone
"$OFFWAKE" -f 2 2> cpipe.err | (sleep 3; head -c 10 > /dev/null)
st=${PIPESTATUS[0]}
big=$(grep -c . cpipe.err)
if [ "$st" -ne 0 ] && [ "$big" -eq 0 ]; then
	pass capture_sigpipe_quiet
else
	# a 2 s capture may be small enough to fit the pipe: retry with SVG + wide
	"$OFFWAKE" --minwidth=0 2 2> cpipe.err | (sleep 3; head -c 10 > /dev/null)
	st=${PIPESTATUS[0]}
	quiet_stop capture_sigpipe_quiet "$st" cpipe.err 300
fi
(trap '' PIPE; "$OFFWAKE" --minwidth=0 2 2> cepipe.err | (sleep 3; head -c 10 > /dev/null)
 exit "${PIPESTATUS[0]}")
st=$?
quiet_stop capture_epipe_quiet "$st" cepipe.err 300

# -o into places that cannot hold the file
touch notadir
for dest in missing/x.svg notadir/x.svg; do
	name=capture_o_${dest%%/*}
	t0=$SECONDS
	"$OFFWAKE" -o "$dest" 3 > o.out 2> o.err; st=$?
	el=$((SECONDS - t0))
	leftover=$(ls -d "$dest"* "${dest%/*}"/x.svg* 2>/dev/null)
	if [ $st -eq 0 ] || [ ! -s o.err ]; then
		fail "$name" "status $st, stderr: $(head -c 200 o.err)"
	elif [ -n "$leftover" ]; then
		fail "$name" "left $leftover"
	else
		pass "$name"
	fi
	grep -q "$dest:" o.err && pass "${name}_names_file" ||
		fail "${name}_names_file" "the message does not name $dest: $(head -c 200 o.err)"
	# a bad -o should be refused before tracing, not after the capture
	[ $el -lt 2 ] && pass "${name}_before_capture" ||
		fail "${name}_before_capture" "the error came after the ${el} s capture (whole capture lost)"
done
# a full file system: no partial file
mkdir -p small
if mount -t tmpfs -o size=8k offwake-faults small 2> /dev/null; then
	"$OFFWAKE" --minwidth=0 -o small/x.svg 2 > /dev/null 2> enospc.err; st=$?
	left=$(ls small)
	umount small
	if [ $st -ne 0 ] && [ -z "$left" ] && grep -qi 'no space' enospc.err; then
		pass capture_o_enospc
	else
		fail capture_o_enospc "status $st, left in the file system: '$left', stderr: $(head -c 200 enospc.err)"
	fi
else
	skip capture_o_enospc "cannot mount a small tmpfs"
fi

# -p with a PID that does not exist, -t with a TID that does not exist,
# -p with a thread's id: refused at once, naming the id
nopid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while kill -0 $nopid 2>/dev/null; do nopid=$((nopid - 1)); done
t0=$SECONDS
"$OFFWAKE" -p $nopid 3 > nopid.out 2> nopid.err; st=$?
if [ $st -eq 2 ] && grep -q "^offwake-svg: -p $nopid: no such process$" nopid.err &&
   [ $((SECONDS - t0)) -lt 2 ] && [ ! -s nopid.out ]; then
	pass capture_nonexistent_pid
else
	fail capture_nonexistent_pid "status $st; expected a message naming PID $nopid, got: $(head -c 200 nopid.err)"
fi
"$OFFWAKE" -t $nopid 3 > nopid.out 2> nopid.err; st=$?
if [ $st -eq 2 ] && grep -q "^offwake-svg: -t $nopid: no such thread$" nopid.err; then
	pass capture_nonexistent_tid
else
	fail capture_nonexistent_tid "status $st; expected a message naming TID $nopid, got: $(head -c 200 nopid.err)"
fi
if cc -O1 -pthread -o pingpong "$TOP/tests/workloads/pingpong.c" 2> /dev/null; then
	./pingpong 10 tids & PP=$!
	for _ in $(seq 50); do [ -s tids ] && break; sleep 0.1; done
	read -r _ PONG < tids
	"$OFFWAKE" -p "$PONG" 3 > thr.out 2> thr.err; st=$?
	if [ $st -eq 2 ] && grep -q "^offwake-svg: -p $PONG: a thread of process $PP" thr.err; then
		pass capture_pid_is_thread
	else
		fail capture_pid_is_thread "status $st: $(head -c 200 thr.err)"
	fi
	kill $PP 2>/dev/null; wait $PP 2>/dev/null
else
	skip capture_pid_is_thread "cannot build tests/workloads/pingpong.c"
fi
# -p with a process that exits during the capture: an output, exit 0 or 2,
# and a note that it exited
sleep 1 & SP=$!
"$OFFWAKE" -f -p $SP 3 > exit.out 2> exit.err; st=$?
if { [ $st -eq 0 ] || [ $st -eq 2 ]; } && ! grep -qi 'error\|fail' exit.err &&
   grep -q "^offwake-svg: process $SP exited during the capture$" exit.err; then
	pass capture_pid_exits
else
	fail capture_pid_exits "status $st: $(head -c 200 exit.err)"
fi
wait $SP 2>/dev/null

# The live status line: on a terminal (script(1) makes one) it shows what
# start-up is doing (the loads take a quarter of a second at least), then
# the capture's state, and is cleared at the end; never with -q, nor when
# stderr is not a terminal.
if command -v script > /dev/null; then
	OFFWAKE_PROGRESS_DELAY=0 script -qec "'$OFFWAKE' -f 2 > tty.out" /dev/null > tty.log 2>&1
	log=$(cat tty.log)
	# after the last erase, no status is left on the screen
	if grep -qE 'offwake-svg: capturing [0-9.]+ / 2 s, [0-9]+ blocks, [0-9]+ stacks, [0-9]+ keys, map [0-9]+%' tty.log &&
	   grep -qa 'offwake-svg: starting: loading the BPF programs' tty.log &&
	   [[ $log == *$'\r\033[K'* ]] && ! grep -qE 'capturing|starting|finishing|writing' <<<"${log##*$'\033[K'}" &&
	   [ -s tty.out ]; then
		pass capture_status_tty
	else
		fail capture_status_tty "$(head -c 300 tty.log | od -c | head -5)"
	fi
	OFFWAKE_PROGRESS_DELAY=0 script -qec "'$OFFWAKE' -q -f 1 > tty.out" /dev/null > tty.log 2>&1
	if ! grep -q 'capturing' tty.log && [ -s tty.out ]; then
		pass capture_status_quiet
	else
		fail capture_status_quiet "$(head -c 300 tty.log | od -c | head -5)"
	fi
else
	skip capture_status_tty "script(1) is not installed"
	skip capture_status_quiet "script(1) is not installed"
fi
OFFWAKE_PROGRESS_DELAY=0 "$OFFWAKE" -f 1 > notty.out 2> notty.err; st=$?
if [ $st -eq 0 ] && ! grep -q 'capturing' notty.err && ! grep -q $'\033' notty.err; then
	pass capture_status_not_tty
else
	fail capture_status_not_tty "status $st: $(head -c 200 notty.err | od -c | head -3)"
fi

# A traced binary whose .gnu_debuglink names a FIFO (any user can make one
# next to their own program): symbolising it must not open the FIFO and
# block forever; the capture must end and write its output.
if command -v objcopy > /dev/null && command -v strip > /dev/null; then
	mkdir -p fifo
	# the blocking system call is made from the program itself (x86-64
	# inline syscall), so the user IP is in this file and it gets symbolised
	cat > fifo/w.c <<'C'
#include <time.h>
int main(void)
{
	struct timespec t = { 0, 20000000 };
	for (int i = 0; i < 400; i++) {
#if defined(__x86_64__)
		long r;
		__asm__ volatile("syscall" : "=a"(r) : "0"(35L), "D"(&t), "S"(0L) : "rcx", "r11", "memory");
#else
		nanosleep(&t, 0);
#endif
	}
	return 0;
}
C
	if cc -O1 -fno-omit-frame-pointer -o fifo/w fifo/w.c && strip --strip-all fifo/w && echo x > fifo/w.debug &&
	   objcopy --add-gnu-debuglink=fifo/w.debug fifo/w fifo/waiter && rm fifo/w.debug &&
	   mkfifo fifo/w.debug; then
		chmod +x fifo/waiter
		./fifo/waiter & W=$!
		sleep 0.2
		timeout 30 "$OFFWAKE" -f -p $W 2 > fifo.out 2> fifo.err; st=$?
		kill $W 2>/dev/null; wait $W 2>/dev/null
		if [ $st -eq 124 ]; then
			fail capture_debuglink_fifo "hung (30 s) opening the FIFO named by .gnu_debuglink"
		elif [ $st -eq 0 ] || [ $st -eq 2 ]; then
			pass capture_debuglink_fifo
		else
			fail capture_debuglink_fifo "status $st: $(head -c 200 fifo.err)"
		fi
		# unblock a hung opener, if any, so nothing is left behind
		( exec 3<> fifo/w.debug ) 2>/dev/null
	else
		skip capture_debuglink_fifo "cannot build the test binary"
	fi
else
	skip capture_debuglink_fifo "needs objcopy and strip (binutils)"
fi
