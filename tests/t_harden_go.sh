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
