#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_harden_cache.sh - the unwind table cache (src/unwind/table_cache.c,
# OFFWAKE_UNWIND_CACHE=DIR) against files and links others plant, and
# against damaged tables (issue 44, item 7).  Its directory was resolved
# by path at every open, a FIFO there was opened blocking, and a table
# read back was checked for order only.
# ow_chain (tests/workloads/chain.c, no frame pointers: only the tables
# walk it), traced with -- CMD; its table's file name is the one a first
# capture (the seed, by this same binary) kept for it: the name hashes
# the ELF file's identity and this build's (table_cache.c, name_of()),
# not the directory, and the header holds the inode at byte 24.
# 1. a path through another user's symbolic link is refused (said in the
#    summary), nothing made at the link's target; one of root's is
#    followed (the cache used);
# 2. a FIFO (nobody's) at ow_chain's table name: a 3 s capture ends in
#    time, the FIFO counted as not a regular file and replaced;
# 3. a rule of ow_chain's table flipped (f3's CFA from rsp to rbp: still
#    in order and in range): refused by the checksum, built again (the
#    file as the seed's again), stacks whole;
# 4. the same row made OW_CFA_END with its offset kept, the checksum
#    recomputed (gzip's trailer is zlib's CRC-32): refused by the range
#    check, built again, stacks whole;
# 5. the cache directory, in a directory of nobody's, swapped by nobody
#    for a link to nobody's directory with a FIFO at ow_chain's name
#    after the capture started: not followed (nothing written there, the
#    FIFO not waited on), the table kept in the directory it opened.
# Needs root, BPF, cc (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads
HDR=144		# sizeof(struct hdr) in table_cache.c; its crc at 136

can_unwind harden_cache || exit 0
if ! cc "${CF_NOFP[@]}" -o "$TMPD/ow_chain" "$WL/chain.c" "$WL/chainlib.c" 2> "$TMPD/cc.err"; then
	fail harden_cache_build "$(head -c 300 "$TMPD/cc.err")"
	exit 0
fi
chmod 755 "$TMPD"	# (nobody works in directories under it)

# run NAME DIR [SECONDS]: a capture of ow_chain with the cache in DIR
run() {
	OFFWAKE_UNWIND_CACHE=$2 timeout 60 "$OFFWAKE" -f -- "$TMPD/ow_chain" "${3:-2}" thread \
		> "$TMPD/$1" 2> "$TMPD/$1.err"
}
# finish PID: wait up to 60 s from now for capture PID, then SIGINT it;
# dt: the seconds it took
finish() {
	local t0=$SECONDS
	while kill -0 "$1" 2> /dev/null && [ $((SECONDS - t0)) -lt 60 ]; do
		sleep 0.1
	done
	kill -INT "$1" 2> /dev/null
	wait "$1"
	dt=$((SECONDS - t0))
}
line() { grep -a 'unwind tables' "$TMPD/$1.err"; }
WHOLE=';main;f1;f2;f3;f4;f5;f6;[^;]*read[^;]*;.*;--;.*;[^;]*write[^;]*;w6;w5;w4;w3;w2;w1;writer;'
whole() { share "$TMPD/$1" "$WHOLE" '^ow_chain;'; }
# uwt_of DIR: the table file in DIR of ow_chain (its inode in the header)
uwt_of() {
	local f ino
	ino=$(stat -c %i "$TMPD/ow_chain")
	for f in "$1"/*.uwt; do
		[ "$(od -An -t u8 -j 24 -N 8 "$f" 2> /dev/null | tr -d ' ')" = "$ino" ] &&
			{ echo "$f"; return; }
	done
}
# f3_rule FILE: the offset of the rule byte (cfa: low 3 bits) of f3's
# row after its prologue (its call's), the second row in f3's range
f3_rule() {
	local a s
	read -r a s <<< "$(nm -S "$TMPD/ow_chain" | awk '$4 == "f3" { print $1, $2 }')"
	od -An -v -t u4 -j $HDR -w8 "$1" |
		awk -v lo=$((16#$a)) -v hi=$((16#$a + 16#$s)) -v h=$HDR \
			'$1 >= lo && $1 < hi && ++n == 2 { print h + 8 * (NR - 1) + 4 }'
}
byte_at() { od -An -t u1 -j "$2" -N 1 "$1" | tr -d ' '; }
set_byte() { printf "\\x$(printf %02x "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# fix_crc FILE: its checksum recomputed over the header (crc 0) and rows
fix_crc() {
	{ head -c 136 "$1"; head -c 8 /dev/zero; tail -c +$((HDR + 1)) "$1"; } |
		gzip -c | tail -c 8 | head -c 4 > "$TMPD/crc.bytes"
	head -c 4 /dev/zero >> "$TMPD/crc.bytes"
	dd if="$TMPD/crc.bytes" of="$1" bs=1 seek=136 conv=notrunc status=none
}

# the seed: ow_chain's table file and its name
SEED=$TMPD/c.seed
run seed "$SEED"
SF=$(uwt_of "$SEED")
if [ -z "$SF" ]; then
	fail harden_cache_seed "no table of ow_chain kept in $SEED: $(line seed)"
	exit 0
fi
NAME=$(basename "$SF")

# 1. another user's symbolic link on the way; root's
S=$TMPD/shared
mkdir -p "$S" && chown nobody:nogroup "$S"
runuser -u nobody -- mkdir "$S/real"
runuser -u nobody -- ln -s "$S/real" "$S/ln"
run link "$S/ln/uc"
mkdir -p "$TMPD/rootreal" && ln -s "$TMPD/rootreal" "$TMPD/rootln"
run rootlink "$TMPD/rootln/uc"
if line link | grep -q "no cache: $S/ln/uc: ln: a symbolic link of uid 65534's" &&
   [ -z "$(ls -A "$S/real")" ] && [ "$(whole link)" -ge 80 ] &&
   [ -n "$(uwt_of "$TMPD/rootreal/uc")" ]; then
	pass harden_cache_others_link_refused
else
	fail harden_cache_others_link_refused "$(line link); in its target: $(ls -A "$S/real" | head -3); root's link: $(ls "$TMPD/rootreal/uc" 2>&1 | head -2)"
fi

# 2. a FIFO at the name
F=$TMPD/c.fifo
mkdir -m 700 "$F" && mkfifo "$F/$NAME" && chown nobody:nogroup "$F/$NAME"
OFFWAKE_UNWIND_CACHE=$F "$OFFWAKE" -f -- "$TMPD/ow_chain" 3 thread \
	> "$TMPD/fifo" 2> "$TMPD/fifo.err" &
pid=$!
attached $pid	# (the loading's time is not the point)
finish $pid
if [ $dt -lt 15 ] && line fifo | grep -q '1 refused there (1 not a regular file: built again)' &&
   [ -f "$F/$NAME" ] && cmp -s "$F/$NAME" "$SF" && [ "$(whole fifo)" -ge 80 ]; then
	pass "harden_cache_fifo_not_waited_on (${dt} s)"
else
	fail harden_cache_fifo_not_waited_on "${dt} s; $(line fifo); $(ls -l "$F/$NAME")"
fi

# 3, 4. a rule damaged: the checksum; with the checksum made right, the range
damage() {	# damage NAME VALUE [crc]: f3's rule byte set to VALUE
	local d=$TMPD/$1.d f off
	cp -a "$SEED" "$d"
	f=$d/$NAME
	off=$(f3_rule "$f")
	if [ -z "$off" ] || [ $(($(byte_at "$f" "$off") & 7)) != 1 ]; then
		echo "no rsp row in f3 (at ${off:-?})"
		return
	fi
	set_byte "$f" "$off" "$2"
	[ "${3:-}" ] && fix_crc "$f"
	run "$1" "$d"
}
why=$(damage crc 2)
if [ -z "$why" ] && line crc | grep -q '1 refused there (1 checksum: built again)' &&
   cmp -s "$TMPD/crc.d/$NAME" "$SF" && [ "$(whole crc)" -ge 80 ]; then
	pass harden_cache_bad_rule_checksum
else
	fail harden_cache_bad_rule_checksum "$why $(line crc); whole $(whole crc)%"
fi
why=$(damage range 4 crc)
if [ -z "$why" ] && line range | grep -q '1 refused there (1 a rule out of range: built again)' &&
   cmp -s "$TMPD/range.d/$NAME" "$SF" && [ "$(whole range)" -ge 80 ]; then
	pass harden_cache_bad_rule_range
else
	fail harden_cache_bad_rule_range "$why $(line range); whole $(whole range)%"
fi

# 5. the directory swapped for a link after the start
S2=$TMPD/shared2
mkdir -p "$S2" && chown nobody:nogroup "$S2" && mkdir -m 700 "$S2/uc"
mkfifo "$TMPD/go"
OFFWAKE_UNWIND_CACHE=$S2/uc "$OFFWAKE" -f -- sh -c \
	"read go < '$TMPD/go'; exec '$TMPD/ow_chain' 2 thread" \
	> "$TMPD/swap" 2> "$TMPD/swap.err" &
pid=$!
if attached $pid; then
	runuser -u nobody -- sh -c "mv '$S2/uc' '$S2/uc.away' && mkdir '$S2/evil' &&
		mkfifo '$S2/evil/$NAME' && ln -s '$S2/evil' '$S2/uc'"
	timeout 30 sh -c "echo go > '$TMPD/go'"	# (ow_chain runs 2 s now)
fi
finish $pid
left=$(ls -A "$S2/evil" 2> /dev/null | tr '\n' ' ')
if [ $dt -lt 15 ] && [ "$left" = "$NAME " ] && [ -p "$S2/evil/$NAME" ] &&
   cmp -s "$S2/uc.away/$NAME" "$SF" && [ "$(whole swap)" -ge 80 ]; then
	pass "harden_cache_dir_swapped_not_followed (${dt} s)"
else
	fail harden_cache_dir_swapped_not_followed "${dt} s; in nobody's directory: $left; kept: $(ls "$S2/uc.away" 2>&1 | head -c 200); $(line swap)"
fi
