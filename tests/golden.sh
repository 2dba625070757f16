#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# golden.sh - golden-file tests of `offwake-svg render`: each tests/golden/NAME.args
# (one line of options) with NAME.folded as input (NAME.attrs and NAME.palette.map
# are copied beside it when present) must give exactly NAME.svg and the exit
# status in NAME.exit (and, for --cp, the palette.map in NAME.palette.map.out).
# The expected files were made by our renderer after checking them against
# flamegraph.pl (tests/difftest).  --update regenerates them on purpose.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
OFFWAKE=${OFFWAKE:-$PWD/offwake-svg}
update=0
[ "${1:-}" = --update ] && update=1
G=$PWD/tests/golden
for args in "$G"/*.args; do
	name=$(basename "$args" .args)
	d=$TMPD/$name
	mkdir -p "$d"
	cp "$G/$name.folded" "$d/"
	[ -f "$G/$name.attrs" ] && cp "$G/$name.attrs" "$d/"
	[ -f "$G/$name.palette.map" ] && cp "$G/$name.palette.map" "$d/palette.map"
	read -r -a opts < "$args"
	(cd "$d" && "$OFFWAKE" render "${opts[@]}" "$name.folded" > out.svg 2> err.txt; echo $? > exit)
	if [ $update = 1 ]; then
		cp "$d/out.svg" "$G/$name.svg"
		cp "$d/exit" "$G/$name.exit"
		[ -f "$d/palette.map" ] && cp "$d/palette.map" "$G/$name.palette.map.out"
		echo "updated $name"
		continue
	fi
	if ! cmp -s "$d/out.svg" "$G/$name.svg"; then
		fail "golden $name" "SVG differs from tests/golden/$name.svg (diff $d/out.svg)"
		diff "$G/$name.svg" "$d/out.svg" | head -5
	elif ! cmp -s "$d/exit" "$G/$name.exit"; then
		fail "golden $name" "exit status $(cat "$d/exit"), expected $(cat "$G/$name.exit")"
	elif [ -f "$G/$name.palette.map.out" ] && ! cmp -s "$d/palette.map" "$G/$name.palette.map.out"; then
		fail "golden $name" "palette.map differs from $name.palette.map.out"
	else
		pass "golden $name"
	fi
	if xmllint --noout "$d/out.svg" 2> "$d/xml.err"; then
		pass "well-formed $name"
	else
		fail "well-formed $name" "$(head -1 "$d/xml.err")"
	fi
done
