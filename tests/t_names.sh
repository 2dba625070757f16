#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_names.sh - user-space names where a binary's .symtab is stripped
# (src/symbols/usyms.c), checked on live processes with
# build/tests_src/usymname (no BPF): MiniDebugInfo made as Fedora makes
# it, a debug file by .gnu_debuglink used only when its build id is the
# binary's, frames with no symbol named after their file ([unknown] with
# --plain, and outside any mapping).  Addresses come from an unstripped
# build of the same source (non-PIE: nm's values are the addresses).
. "$(dirname "$0")/lib.sh"
USYMNAME=$TOP/build/tests_src/usymname
[ -x "$USYMNAME" ] || { skip names "build/tests_src/usymname not built (make test-bin)"; exit 0; }
for t in cc strip objcopy nm xz; do
	command -v $t > /dev/null || { skip names "$t not installed"; exit 0; }
done
cd "$TMPD" || exit 1
PIDS=()
trap 'kill "${PIDS[@]}" 2> /dev/null; rm -rf "$TMPD"' EXIT

cat > p.c <<'C'
#include <unistd.h>
#ifdef OTHER
__attribute__((noinline)) int ow_pad(int x) { return x * 3 + 1; }
#endif
static __attribute__((noinline)) int ow_static_leaf(int x)
{
	pause();
	return x + 1;
}
__attribute__((noinline)) int ow_global_mid(int x) { return ow_static_leaf(x) * 2; }
int main(int argc, char **argv) { return ow_global_mid(argc); }
C
cc -O1 -g -no-pie -o full p.c && cc -O1 -g -no-pie -DOTHER -o other p.c ||
	{ skip names "cannot build a non-PIE C program"; exit 0; }
LEAF=$(nm full | awk '$3 == "ow_static_leaf" { print $1 }')
MID=$(nm full | awk '$3 == "ow_global_mid" { print $1 }')

# names [--plain] NAME: GOT = the names of LEAF+1, MID+1 and 0x10 in a
# process of ./NAME (waiting in pause()), joined by ';'
names() {
	local plain= pid
	[ "$1" = --plain ] && { plain=--plain; shift; }
	"./$1" > /dev/null 2>&1 & pid=$!
	PIDS+=("$pid")
	sleep 0.2
	GOT=$("$USYMNAME" $plain "$pid" "$(printf %x $((0x$LEAF + 1)))" \
		"$(printf %x $((0x$MID + 1)))" 10 | paste -sd';')
	kill "$pid"
}
# expect NAME WANT: GOT is WANT
expect() { if [ "$GOT" = "$2" ]; then pass "$1"; else fail "$1" "got '$GOT', want '$2'"; fi; }

# Stripped: named after the file ([unknown] with --plain).
cp full stripped && strip --strip-all stripped
names stripped
expect names_file_label "[stripped];[stripped];[unknown]"
names --plain stripped
expect names_plain_unknown "[unknown];[unknown];[unknown]"

# MiniDebugInfo, as Fedora's find-debuginfo makes it: the function symbols
# .dynsym lacks, in an xz-compressed ELF in .gnu_debugdata.
nm -D full --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms
nm full --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort > funcsyms
comm -13 dynsyms funcsyms > keep
objcopy --only-keep-debug full debug &&
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep debug mini &&
xz -f mini && cp stripped minidebug &&
objcopy --add-section .gnu_debugdata=mini.xz minidebug ||
	fail names_minidebuginfo "could not make the .gnu_debugdata section"
names minidebug
expect names_minidebuginfo "ow_static_leaf;ow_global_mid;[unknown]"

# .gnu_debuglink: the debug file of this build names; one of another build
# (another build id, its functions elsewhere) is never used.
objcopy --only-keep-debug full linked.debug && cp stripped linked &&
objcopy --add-gnu-debuglink=linked.debug linked
names linked
expect names_debuglink "ow_static_leaf;ow_global_mid;[unknown]"
cp stripped wrong && objcopy --only-keep-debug full wrong.debug &&
objcopy --add-gnu-debuglink=wrong.debug wrong &&
objcopy --only-keep-debug other wrong.debug
names wrong
expect names_debuglink_other_build "[wrong];[wrong];[unknown]"

# A file replaced on disk since it was mapped (a new build renamed over
# it, as upgrades do), its process gone before its frames are named: the
# file by its path is another; its frames are "[FILE (changed)]", never
# named by the new build's symbols (ow_new_*), and stderr says so once.
cc -O1 -g -no-pie -Dow_static_leaf=ow_new_leaf -Dow_global_mid=ow_new_mid -DOTHER -o newbuild p.c
cp full chg && mkfifo fifo
./chg > /dev/null 2>&1 & pid=$!
PIDS+=("$pid")
sleep 0.2
"$USYMNAME" --wait "$pid" "$(printf %x $((0x$LEAF + 1)))" "$(printf %x $((0x$MID + 1)))" \
	< fifo > chg.out 2> chg.err & U=$!
exec 3> fifo
sleep 0.3
cp newbuild chg.new && mv chg.new chg
kill "$pid"; wait "$pid" 2> /dev/null
exec 3>&-
wait "$U"
GOT=$(paste -sd';' chg.out)
expect names_changed_on_disk "[chg (changed)];[chg (changed)]"
if [ "$(grep -c 'changed on disk since they were mapped (.*/chg: another file is there now)' chg.err)" = 1 ]; then
	pass names_changed_on_disk_reported
else fail names_changed_on_disk_reported "$(cat chg.err)"; fi

# The same, its maps read after the rename (the kernel then lists the
# path with " (deleted)": a capture re-reads them at the process's next
# block, which can fall between the rename and the exit): the file at the
# path is still another one, not a file that is not there.
cp full chg2 && mkfifo fifo2
./chg2 > /dev/null 2>&1 & pid=$!
PIDS+=("$pid")
sleep 0.2
cp newbuild chg2.new && mv chg2.new chg2
"$USYMNAME" --wait "$pid" "$(printf %x $((0x$LEAF + 1)))" "$(printf %x $((0x$MID + 1)))" \
	< fifo2 > chg2.out 2> chg2.err & U=$!
exec 3> fifo2
sleep 0.3
kill "$pid"; wait "$pid" 2> /dev/null
exec 3>&-
wait "$U"
GOT=$(paste -sd';' chg2.out)
expect names_changed_maps_deleted "[chg2 (changed)];[chg2 (changed)]"
if grep -q 'changed on disk since they were mapped (.*/chg2: another file is there now)' chg2.err; then
	pass names_changed_maps_deleted_reported
else fail names_changed_maps_deleted_reported "$(cat chg2.err)"; fi

# The same in a capture: a program blocks 0.3 s, then renames a new build
# (other function names) over its own binary and exits at once, before
# the capture's next drain names its frames.  Run as -- CMD: the capture
# lets CMD exec once its programs are armed, and ends when it exits.  (Run
# after attached(), which returns at the first BPF link, its 0.3 s block
# began before the arming once in a make check's ASan pass: not counted,
# the test saw only its exit.)
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	cat > live.c <<'C'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) void ow_old_leaf(void) { usleep(300000); }
__attribute__((noinline)) void ow_old_mid(void) { ow_old_leaf(); }
int main(int argc, char **argv)
{
	ow_old_mid();
	return rename(argv[1], argv[0]) != 0;
}
C
	cc -O1 -g -fno-omit-frame-pointer -o liveprog live.c &&
	cc -O1 -g -fno-omit-frame-pointer -Dow_old_leaf=ow_new_leaf -Dow_old_mid=ow_new_mid -o livenew.bin live.c
	"$OFFWAKE" -f -U -- "$TMPD/liveprog" "$TMPD/livenew.bin" > live.folded 2> live.err; st=$?
	if [ "$st" = 0 ] && grep -q '^liveprog;.*\[liveprog (changed)\];\[liveprog (changed)\];' live.folded &&
	   ! grep '^liveprog;' live.folded | grep -q 'ow_new_\|ow_old_' &&
	   grep -q 'changed on disk since they were mapped (.*/liveprog: another file is there now)' live.err
	then pass names_changed_on_disk_capture
	else fail names_changed_on_disk_capture "status $st; $(grep '^liveprog;' live.folded | head -c 600) / $(grep 'changed\|rror' live.err)"; fi

	# A process that lives 0.3 s while the capture builds a large unwind
	# table (here 1.1 s; cc1's took 1-2 s in the ASan build on a busy
	# machine): the capture reads its ring buffer during the build, so it
	# reads the process's maps while it lives and names its frames (they
	# were [unknown]: its exec was read after it had exited).  libslow.so's
	# FDEs have many rows each; libdw runs an FDE's program from its start
	# for each row, so each costs more than the last.
	awk 'BEGIN { print ".text"
		for (f = 0; f < 10; f++) {
			printf ".globl ow_slow%d\n.type ow_slow%d,@function\now_slow%d:\n.cfi_startproc\n", f, f, f
			for (i = 0; i < 6000; i++)
				print "push %rax\n.cfi_adjust_cfa_offset 8\npop %rax\n.cfi_adjust_cfa_offset -8"
			print "ret\n.cfi_endproc" } }' > slow.s
	printf 'void ow_slow0(void);\nint main(int c, char **v) { if (c > 5) ow_slow0(); return pause(); }\n' > slowuser.c
	sed -e 's/ow_old_/ow_short_/g' -e 's/return rename.*/return 0;/' live.c > short.c
	if [ "$(uname -m)" != x86_64 ]; then
		skip names_short_lived_during_table_build "x86_64 only (its assembly; the CFI walker's only machine)"
	elif cc -shared -Wl,-z,noexecstack -o libslow.so slow.s &&
	   cc -include unistd.h -o slowuser slowuser.c -L. -lslow -Wl,-rpath,"$TMPD" &&
	   cc -O1 -g -fno-omit-frame-pointer -o shortprog short.c; then
		# the table's time here, by the capture's builder (uwdump; the
		# capture's summary leaves it out when every walk was deferred)
		t0=$(date +%s%N)
		"$TOP/build/tests_src/uwdump" libslow.so > /dev/null
		ms=$((($(date +%s%N) - t0) / 1000000))
		"$OFFWAKE" -f -U -- sh -c './slowuser & sleep 0.3; ./shortprog; kill $!' > short.folded 2> short.err
		if [ "$ms" -lt 600 ]; then
			fail names_short_lived_during_table_build "libslow.so's table takes $ms ms here, not the 600 ms or more the test needs"
		elif grep -q '^shortprog;.*ow_short_leaf;usleep' short.folded &&
		     grep '^shortprog;.*ow_short_leaf;usleep' short.folded | grep -q ';main;ow_short_mid;'; then
			pass names_short_lived_during_table_build
		else fail names_short_lived_during_table_build "table ${ms} ms; $(grep '^shortprog;' short.folded | sort -t' ' -k2 -n | tail -2 | head -c 600)"; fi
	else fail names_short_lived_during_table_build "could not build the programs"; fi
else
	skip names_changed_on_disk_capture "needs root and kernel BTF"
	skip names_short_lived_during_table_build "needs root and kernel BTF"
fi

# Go: names from the pclntab of binaries built with -ldflags='-s -w' (no
# .symtab): non-PIE (.gopclntab), PIE (.data.rel.ro.gopclntab), and with
# no section headers at all (the table found by its header).
if ! command -v go > /dev/null && [ "$(id -u)" = 0 ]; then
	sh "$TOP/tests/deps.sh" golang-go > /dev/null 2>&1
fi
if ! command -v go > /dev/null; then
	skip names_go "no Go toolchain (golang-go could not be installed)"
	exit 0
fi
mkdir gop && cd gop || exit 1
cat > main.go <<'GO'
package main

import (
	"fmt"
	"os"
	"time"
)

type T struct{ n int }

//go:noinline
func (t *T) owMethod() int { time.Sleep(time.Hour); return t.n }

//go:noinline
func owLeaf(x int) int { return (&T{x}).owMethod() + 1 }

func main() { fmt.Println(owLeaf(len(os.Args))) }
GO
printf 'module owtest\ngo 1.16\n' > go.mod
export HOME=$TMPD GOCACHE=$TMPD/gocache GOPATH=$TMPD/gopath GOFLAGS=-mod=mod GOTOOLCHAIN=local
if ! go build -o ../gofull . 2> ../go.err || ! go build -ldflags='-s -w' -o ../gostripped . ||
   ! go build -buildmode=pie -o ../gopiefull . || ! go build -buildmode=pie -ldflags='-s -w' -o ../gopie .; then
	skip names_go "go build failed: $(head -c 300 ../go.err)"
	exit 0
fi
cd .. || exit 1
# gonames NAME FULL: GOT = the names of main.(*T).owMethod+1, main.owLeaf+1
# in a process of ./NAME, addresses from FULL (relocated by the load base)
gonames() {
	local pid base first m l
	"./$1" > /dev/null 2>&1 & pid=$!
	PIDS+=("$pid")
	sleep 0.3
	base=$(awk -v f="$TMPD/$1" '$6 == f && $3 == "00000000" { print $1; exit }' /proc/$pid/maps | cut -d- -f1)
	first=$(readelf -lW "$2" | awk '$1 == "LOAD" { print $3; exit }')
	m=$(go tool nm "$2" | awk '$3 == "main.(*T).owMethod" { print $1 }')
	l=$(go tool nm "$2" | awk '$3 == "main.owLeaf" { print $1 }')
	GOT=$("$USYMNAME" "$pid" "$(printf %x $((0x$base - first + 0x$m + 1)))" \
		"$(printf %x $((0x$base - first + 0x$l + 1)))" | paste -sd';')
	kill "$pid"
}
GOWANT="main.(*T).owMethod;main.owLeaf"
gonames gostripped gofull
expect names_go_stripped "$GOWANT"
gonames gopie gopiefull
expect names_go_pie "$GOWANT"
# no section headers: e_shoff (8 bytes at 0x28) and e_shnum (2 at 0x3c) zeroed
cp gostripped gonoshdr
printf '\0\0\0\0\0\0\0\0' | dd of=gonoshdr bs=1 seek=$((0x28)) conv=notrunc 2> /dev/null
printf '\0\0\0\0' | dd of=gonoshdr bs=1 seek=$((0x3c)) conv=notrunc 2> /dev/null
gonames gonoshdr gofull
expect names_go_no_section_headers "$GOWANT"
