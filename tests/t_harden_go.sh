#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_harden_go.sh - Go stacks end at the Go runtime's outermost frames
# (src/unwind/go_ends.c, through native_tables.c's END rows): a Go server
# whose goroutines block in a channel receive, time.Sleep, a read of a
# loopback connection and a blocking nanosleep, built with its DWARF
# (.debug_frame: the walker follows Go's CFI) and with -ldflags='-s -w'
# (no CFI at all: frame pointers, and a table of END rows alone), each
# captured with -p for 2 s.  For each build:
#   _outermost: most of its user stacks' walks reach the outermost frame
#     (the summary's "N walks reached the outermost frame"; before: 0 for
#     the stripped build, two thirds for the other);
#   _no_unknown_root: no stack whose root frame is [unknown] with a
#     runtime.* frame next (before: "[unknown];runtime.newproc.abi0;
#     runtime.mcall;..." read from stale words above the main thread's g0
#     stack, a sixth of the time), and under 2% of the time under an
#     [unknown] root;
#   _goroutine_frames: the goroutines' own functions (main.owNap, under
#     runtime.goexit) are still there.
# And the tables themselves (tests_src/uwdump): harden_go_table_ends, an
# END row at each of runtime.goexit, mstart, rt0_go, mcall, systemstack,
# morestack, asmcgocall (go tool nm's addresses); harden_go_hostile_pclntab,
# a copy of the stripped server, run by nobody, whose pclntab names 20
# more functions runtime.goexit: the table keeps 16 ranges, counts the
# rest in nskip, and its capture still works.
. "$(dirname "$0")/lib.sh"
can_unwind harden_go || exit 0
if ! command -v go > /dev/null && [ "$(id -u)" = 0 ]; then
	sh "$TOP/tests/deps.sh" golang-go > /dev/null 2>&1
fi
if ! command -v go > /dev/null; then
	skip harden_go "no Go toolchain (golang-go could not be installed)"
	exit 0
fi
GP=
trap '[ -n "$GP" ] && kill "$GP" 2> /dev/null; rm -rf "$TMPD"' EXIT
mkdir "$TMPD/src" && cd "$TMPD/src" || exit 1
cat > main.go <<'GO'
package main

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

//go:noinline
func owRecv(c chan int) int { return <-c }

//go:noinline
func owSleep() { time.Sleep(3 * time.Millisecond) }

//go:noinline
func owRead(c net.Conn) { b := make([]byte, 1); c.Read(b) }

//go:noinline
func owNap() {
	ts := syscall.Timespec{Nsec: 5000000}
	syscall.Nanosleep(&ts, nil)
}

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(1)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				for {
					owRead(c)
				}
			}()
		}
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		os.Exit(1)
	}
	ch := make(chan int)
	for i := 0; i < 4; i++ {
		go func() {
			for {
				owRecv(ch)
			}
		}()
		go func() {
			for {
				owSleep()
			}
		}()
	}
	go func() {
		for {
			owNap()
		}
	}()
	fmt.Println("ready")
	for {
		time.Sleep(2 * time.Millisecond)
		ch <- 1
		conn.Write([]byte{1})
	}
}
GO
printf 'module owtest\ngo 1.16\n' > go.mod
export HOME=$TMPD GOCACHE=$TMPD/gocache GOPATH=$TMPD/gopath GOFLAGS=-mod=mod GOTOOLCHAIN=local
if ! go build -o ../owgo . 2> ../go.err || ! go build -ldflags='-s -w' -o ../owgos . 2>> ../go.err; then
	skip harden_go "go build failed: $(head -c 300 ../go.err)"
	exit 0
fi
cd "$TMPD" || exit 1

# check NAME BIN: capture BIN's server and check its stacks
check_go() {
	local n=$1 bin=$2 st walks ends bad unk total main
	"./$bin" > "$n.out" 2>&1 & GP=$!
	for _ in $(seq 100); do
		grep -q ready "$n.out" && break
		sleep 0.05
	done
	cap "$n" -p "$GP" 2
	st=$?
	kill "$GP" 2> /dev/null; wait "$GP" 2> /dev/null; GP=
	# walks, and the outermost ones, both sides
	read -r walks ends < <(sed -n 's/.*user stacks of [a-z ]*: \([0-9]*\) by unwind tables, \([0-9]*\) by tables and frame pointers, \([0-9]*\) by frame pointers only; \([0-9]*\) walks reached.*/\1 \2 \3 \4/p' "$n.err" |
		awk '{ w += $1 + $2 + $3; e += $4 } END { print w + 0, e + 0 }')
	# the user frames: from the comm to the first empty field
	read -r bad unk total main < <(awk -v c="$bin" '$0 ~ "^" c ";" {
		v = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		total += v
		if (f[2] == "[unknown]") {
			unk += v
			if (f[3] ~ /^runtime\./) bad++
		}
		if (f[2] ~ /^runtime\.goexit/)
			for (i = 3; i <= k && f[i] != ""; i++)
				if (f[i] == "main.owNap") { main++; break }
	} END { print bad + 0, unk + 0, total + 0, main + 0 }' "$n")
	echo "  ($bin: $walks walks, $ends to the outermost frame; $bad [unknown];runtime.* roots, $unk of $total us under an [unknown] root; $main stacks through main.owNap)"
	if [ "$st" -ne 0 ] || [ "$total" -eq 0 ]; then
		fail "${n}_capture" "capture exit $st, $total us of $bin: $(head -c 300 "$n.err")"
		return
	fi
	if [ "$walks" -gt 0 ] && [ $((ends * 100 / walks)) -ge 90 ]; then
		pass "${n}_outermost"
	else
		fail "${n}_outermost" "$ends of $walks walks reached the outermost frame (want >= 90%): $(grep 'user stacks of' "$n.err" | head -2)"
	fi
	if [ "$bad" -eq 0 ] && [ $((unk * 100 / total)) -lt 2 ]; then
		pass "${n}_no_unknown_root"
	else
		fail "${n}_no_unknown_root" "$bad stacks with [unknown] above runtime.*, $unk of $total us under [unknown]: $(grep "^$bin;\[unknown\];" "$n" | head -2 | cut -c1-300)"
	fi
	if [ "$main" -gt 0 ]; then
		pass "${n}_goroutine_frames"
	else
		fail "${n}_goroutine_frames" "no stack runtime.goexit;...;main.owNap: $(grep "^$bin;" "$n" | sort -t' ' -k2 -rn | head -3 | cut -c1-300)"
	fi
}
check_go harden_go_dwarf owgo
check_go harden_go_stripped owgos

UWDUMP=$TOP/build/tests_src/uwdump
[ -x "${UNIT_DIR:+$(dirname "$UNIT_DIR")/tests_src/uwdump}" ] && UWDUMP=$(dirname "$UNIT_DIR")/tests_src/uwdump
if [ ! -x "$UWDUMP" ]; then
	skip harden_go_table "no $UWDUMP (make test-bin)"
	exit 0
fi
# each outermost function's address (go tool nm), and its row in the table
go tool nm owgo > owgo.nm
"$UWDUMP" owgo > owgo.rows 2> owgo.rows.err
read -r nwant missing < <(python3 - owgo.nm owgo.rows <<'PY'
import bisect, re, sys
want = [(int(a, 16), n) for a, t, n in (l.split()[:3] for l in open(sys.argv[1]) if len(l.split()) >= 3)
        if t == 'T' and re.fullmatch(r'runtime\.(goexit|mstart|rt0_go|mcall|systemstack|morestack|asmcgocall)(\.abi0)?', n)]
rows = [(int(l.split()[0], 16), l.split()[1]) for l in open(sys.argv[2]) if not l.startswith('#')]
pcs = [r[0] for r in rows]
bad = [n for a, n in want if (i := bisect.bisect_right(pcs, a)) == 0 or rows[i - 1][1] != 'end']
print(len(want), ','.join(bad) or '-')
PY
)
if [ "${nwant:-0}" -ge 7 ] && [ "$missing" = - ]; then
	pass harden_go_table_ends
else
	fail harden_go_table_ends "${nwant:-?} functions, not END: ${missing:-?} $(head -c 200 owgo.rows.err)"
fi

# the vDSO callers that run on g0 for a while: no rsp rule past the entry
read -r nwant missing < <(python3 - owgo.nm owgo.rows <<'PY'
import re, sys
fns = sorted((int(a, 16), n) for a, t, n in (l.split()[:3] for l in open(sys.argv[1]) if len(l.split()) >= 3)
             if t in 'Tt')
want = [(i, n) for i, (a, n) in enumerate(fns) if re.fullmatch(r'(runtime\.nanotime1|time\.now)(\.abi0)?', n)]
rows = [(int(l.split()[0], 16), l.split()[1]) for l in open(sys.argv[2]) if not l.startswith('#')]
bad = []
for i, n in want:
    lo, hi = fns[i][0], fns[i + 1][0] if i + 1 < len(fns) else 1 << 64
    rs = [r for r in rows if lo <= r[0] < hi]
    if not any(r[1] == 'rbp+16' for r in rs) or \
       any(re.fullmatch(r'rsp\+(\d+)', r[1]) and int(r[1][4:]) > 8 for r in rs):
        bad.append(n)
print(len(want), ','.join(bad) or '-')
PY
)
if [ "${nwant:-0}" -ge 2 ] && [ "$missing" = - ]; then
	pass harden_go_table_by_rbp
else
	fail harden_go_table_by_rbp "${nwant:-?} functions, with an rsp rule past the entry: ${missing:-?}"
fi

# 20 functions of 14-byte names renamed runtime.goexit in the pclntab
python3 - owgos owgoh owgo.nm <<'PY' > hostile.n
import re, sys
b = open(sys.argv[1], 'rb').read()
names = sorted({l.split()[2] for l in open(sys.argv[3]) if len(l.split()) == 3 and
                l.split()[1] == 'T' and len(l.split()[2]) == 14 and
                not re.search(r'goexit|mstart|mcall|systemstack|morestack|asmcgocall|rt0_go', l)})
n = 0
for name in names:
    old = b'\0' + name.encode() + b'\0'
    if n < 20 and old in b:
        b = b.replace(old, b'\0runtime.goexit\0', 1)
        n += 1
open(sys.argv[2], 'wb').write(b)
print(n)
PY
chmod 755 owgoh "$TMPD"
P=$(cat hostile.n)
"$UWDUMP" owgoh > owgoh.rows 2> owgoh.rows.err
nskip=$(sed -n 's/.* nskip=\([0-9]*\) .*/\1/p' owgoh.rows)
ends=$(awk '$2 == "end"' owgoh.rows | wc -l)
setpriv --reuid=nobody --regid=nogroup --clear-groups ./owgoh > owgoh.out 2>&1 & GP=$!
for _ in $(seq 100); do
	grep -q ready owgoh.out && break
	sleep 0.05
done
cap hostile -p "$GP" 2
st=$?
kill "$GP" 2> /dev/null; wait "$GP" 2> /dev/null; GP=
echo "  (hostile pclntab: $P functions renamed; $ends END rows, nskip ${nskip:-?}; capture exit $st, $(grep -c '^owgoh;' hostile) stacks)"
if [ "$P" -ge 10 ] && [ "${nskip:-0}" -ge $((P + 8 - 16)) ] && [ "$ends" -le 16 ] &&
   [ "$st" -eq 0 ] && grep -q '^owgoh;' hostile; then
	pass harden_go_hostile_pclntab
else
	fail harden_go_hostile_pclntab "$P renamed, $ends END rows, nskip ${nskip:-?}, capture exit $st: $(head -c 300 owgoh.rows.err hostile.err)"
fi
