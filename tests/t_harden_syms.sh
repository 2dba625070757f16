#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_harden_syms.sh - regression tests of issue 44, "Hardening, round
# three", its symbol items (src/symbols/usyms.c, perfmap.c), on captures:
#   4  60000 symbols sharing one 8000-byte name (a .symtab rewritten so
#      that they all point at one string): the tracer's peak RSS stays
#      far below the 480 MB one copy per symbol took, the name still shown;
#   5  a .gnu_debuglink to an 8 TB sparse file beside a binary without a
#      build id: the capture ends on time (the file is refused by its
#      size, said in a warning), and SIGINT ends one at once;
#   6  a process in a user and mount namespace of its own, as nobody,
#      bind-mounts a root-only 0600 file over its /tmp/perf-PID.map: its
#      lines are not frame names, a one-line warning says why;
#   11 a perf map the traced process writes its line to during the
#      capture (1.5 s in): the frames of before it are named too.
# Needs root, kernel BTF, x86-64 (the JIT stub), python3; skips with the
# reason otherwise.
. "$(dirname "$0")/lib.sh"
can_capture harden_syms || exit 0
if [ "$(uname -m)" != x86_64 ]; then
	skip harden_syms "x86-64 only (the ELF rewriting and the JIT stub)"
	exit 0
fi
for t in cc strip objcopy python3 truncate unshare runuser; do
	command -v $t > /dev/null || { skip harden_syms "$t not installed"; exit 0; }
done
cd "$TMPD" || exit 1
chmod 755 "$TMPD"
PIDS=()
MAPS=()
cleanup() {
	kill "${PIDS[@]}" 2> /dev/null
	rm -f "${MAPS[@]}"
	rm -rf "$TMPD"
}
trap cleanup EXIT

cat > sleeper.c <<'C'
#include <time.h>
__attribute__((noinline)) void victim(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	for (;;)
		nanosleep(&ts, 0);
}
int main(void) { victim(); }
C

# ---- 4: one name, 60000 symbols --------------------------------------
# victim's symbol renamed to LONG and 60000 global aliases of it added,
# every one with the same st_name (the new .symtab and .strtab appended
# to the file, their section headers pointed there).
cat > aliases.py <<'PY'
import struct, sys
src, dst, n, long_name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].encode()
f = bytearray(open(src, 'rb').read())
shoff, = struct.unpack_from('<Q', f, 0x28)
shnum, = struct.unpack_from('<H', f, 0x3c)
F = '<IIQQQQIIQQ'
sh = [list(struct.unpack_from(F, f, shoff + i * 64)) for i in range(shnum)]
si = [i for i, s in enumerate(sh) if s[1] == 2][0]
sym, st = sh[si], sh[sh[si][6]]
strtab = bytes(f[st[4]:st[4] + st[5]])
syms = [list(struct.unpack_from('<IBBHQQ', f, sym[4] + i * 24))
	for i in range(sym[5] // 24)]
off = len(strtab)
victim = None
for s in syms:
	if strtab[s[0]:strtab.index(b'\0', s[0])] == b'victim':
		s[0] = off
		victim = s
extra = [[off, 0x12, 0, victim[3], victim[4], victim[5]]] * n
newsym = b''.join(struct.pack('<IBBHQQ', *s) for s in syms + extra)
newstr = strtab + long_name + b'\0'
f += b'\0' * (-len(f) % 8)
sym[4], sym[5] = len(f), len(newsym)
f += newsym
st[4], st[5] = len(f), len(newstr)
f += newstr
for i in (si, sh[si][6]):
	struct.pack_into(F, f, shoff + i * 64, *sh[i])
open(dst, 'wb').write(f)
PY
LONG=hostile_alias_$(printf 'x%.0s' $(seq 7980))_end
if ! cc -O1 -fno-omit-frame-pointer -no-pie -o sleeper sleeper.c 2> cc.err ||
   ! python3 aliases.py sleeper aliased 60000 "$LONG" 2> py.err; then
	fail 4_aliases_build "$(head -c 300 cc.err py.err)"
else
	chmod 755 aliased
	./aliased & PIDS+=($!)
	/usr/bin/time -f %M -o rss "$OFFWAKE" -f -p "${PIDS[-1]}" 2 > al.out 2> al.err
	st=$?
	kb=$(tail -n 1 rss)
	named=$(grep -c "$LONG" al.out)
	# one copy per symbol: 60000 x 8 KB = 480 MB more than this
	if [ "$st" -eq 0 ] && [ "$named" -gt 0 ] && [ "${kb:-999999999}" -lt 204800 ]; then
		pass 4_aliases_one_copy
	else
		fail 4_aliases_one_copy "status $st, peak RSS ${kb} KB (bound 200 MB), the long name in $named lines: $(head -c 300 al.err)"
	fi
	kill "${PIDS[-1]}" 2> /dev/null
fi

# ---- 5: a debug link to an 8 TB sparse file ---------------------------
if ! cc -O1 -fno-omit-frame-pointer -Wl,--build-id=none -o dl sleeper.c 2> cc.err ||
   ! objcopy --only-keep-debug dl dl.debug || ! strip --strip-all dl ||
   ! objcopy --add-gnu-debuglink=dl.debug dl 2> cc.err; then
	fail 5_debuglink_build "$(head -c 300 cc.err)"
elif ! truncate -s 8T dl.debug 2> tr.err; then
	skip 5_debuglink_sparse "this file system takes no 8 TB sparse file: $(head -c 200 tr.err)"
else
	./dl & PIDS+=($!)
	t0=$SECONDS
	timeout -k 5 60 "$OFFWAKE" -f -p "${PIDS[-1]}" 2 > dl.out 2> dl.err
	st=$?
	took=$((SECONDS - t0))
	if [ "$st" -eq 0 ] && [ "$took" -lt 60 ] && grep -q '\[dl\]' dl.out &&
	   grep -q 'warning: symbols not used: 1 debug files over 4 GiB' dl.err; then
		pass 5_debuglink_huge_refused
	else
		fail 5_debuglink_huge_refused "status $st after $took s (a 2 s capture), [dl] frames: $(grep -c '\[dl\]' dl.out): $(head -c 300 dl.err)"
	fi
	# SIGINT once the file's frames have been named (drains each 0.5 s)
	"$OFFWAKE" -f -p "${PIDS[-1]}" > int.out 2> int.err & C=$!
	if ! attached "$C"; then
		fail 5_debuglink_sigint "the capture did not attach: $(head -c 300 int.err)"
	else
		sleep 1.5
		t0=$(date +%s%N)
		kill -INT "$C"
		for _ in $(seq 300); do kill -0 "$C" 2> /dev/null || break; sleep 0.01; done
		ms=$((($(date +%s%N) - t0) / 1000000))
		kill -KILL "$C" 2> /dev/null
		wait "$C"; st=$?
		# 0.5 s asked; a loaded machine's output and exit get more
		if [ "$st" -eq 0 ] && [ "$ms" -lt 2000 ] && grep -q '\[dl\]' int.out; then
			pass 5_debuglink_sigint
		else
			fail 5_debuglink_sigint "status $st, $ms ms after SIGINT, [dl] frames: $(grep -c '\[dl\]' int.out): $(head -c 300 int.err)"
		fi
	fi
	kill "${PIDS[-1]}" 2> /dev/null
	rm -f dl.debug
fi

# ---- 6 and 11: perf maps ----------------------------------------------
# A "JIT" (tests/workloads/jitstub.c): it prints the stub's address and
# size, and its pid; given a name, it creates its (empty) map at once and
# writes the stub's line when sent SIGUSR1.
if ! cc -O1 -fno-omit-frame-pointer -o jit "$TOP/tests/workloads/jitstub.c" 2> cc.err; then
	fail 6_jit_build "$(head -c 300 cc.err)"
	exit 0
fi
chmod 755 jit

# 6: the map bind-mounted in the process's own mount namespace
if ! runuser -u nobody -- unshare -Urm true 2> ns.err; then
	skip 6_perfmap_bind_mount "nobody cannot make a user and mount namespace: $(head -c 200 ns.err)"
else
	echo "0 0 none" > secret.map
	chmod 600 secret.map
	runuser -u nobody -- unshare -Urm sh -c \
		'touch /tmp/perf-$$.map && mount --bind '"$TMPD"'/secret.map /tmp/perf-$$.map && exec ./jit' \
		> ns.addr 2> ns.err & PIDS+=($!)
	for _ in $(seq 100); do [ -s ns.addr ] && break; sleep 0.05; done
	read -r A S J < ns.addr
	PIDS+=($J)
	MAPS+=("/tmp/perf-$J.map")
	echo "$A $S root_only_secret_line" > secret.map
	"$OFFWAKE" -f -p "$J" 2 > ns.out 2> ns.err
	st=$?
	jitf=$(grep -c '' ns.out)
	if [ "$st" -eq 0 ] && [ "$jitf" -gt 0 ] && ! grep -q root_only_secret_line ns.out &&
	   [ "$(grep -c 'perf maps not read' ns.err)" -eq 1 ] &&
	   grep -q "perf maps not read (/proc/$J/root/tmp/perf-$J.map: Permission denied as the process's user" ns.err; then
		pass 6_perfmap_bind_mount
	else
		fail 6_perfmap_bind_mount "status $st, $jitf lines, the secret in $(grep -c root_only_secret_line ns.out): $(head -c 400 ns.err)"
	fi
	kill "$J" 2> /dev/null
fi

# 11: the line written 1.5 s into a 3 s capture
./jit jit_late_stub > late.addr & J=$!
PIDS+=($J)
MAPS+=("/tmp/perf-$J.map")
for _ in $(seq 100); do [ -s late.addr ] && break; sleep 0.05; done
"$OFFWAKE" -f -p "$J" 3 > late.out 2> late.err & C=$!
if attached "$C"; then
	sleep 1.5
	kill -USR1 "$J"
fi
wait "$C"; st=$?
named=$(sum_us late.out 'jit_late_stub')
anon=$(sum_us late.out '\[anon\]')
if [ "$st" -eq 0 ] && [ "$named" -gt 0 ] && [ "$((named * 100 / (named + anon)))" -ge 90 ]; then
	pass 11_perfmap_written_late
else
	fail 11_perfmap_written_late "status $st, $named us named, $anon us [anon]: $(head -c 300 late.err)"
fi
kill "$J" 2> /dev/null
exit 0
