#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_valgrind.sh - valgrind memcheck on the render path: the golden cases
# (tests/golden/NAME.args + NAME.folded, with NAME.attrs and
# NAME.palette.map when present) and a few hostile inputs.  Any memory
# error or definite leak fails.  PCRE2 JIT false positives are suppressed
# (tests/valgrind/render.supp).  SKIP when valgrind is not installed or the
# binary is built with ASan (SANITIZE=1).
# VALGRIND_MAX=N limits the number of golden cases (default: all).
. "$(dirname "$0")/lib.sh"
G=$TOP/tests/golden

if ! command -v valgrind > /dev/null; then
	skip valgrind "valgrind not installed"
	exit 0
fi
if asan_build; then
	skip valgrind "the binary is built with sanitizers (SANITIZE=1)"
	exit 0
fi
# a private copy: the binary under test must not change under us
cp "$OFFWAKE" "$TMPD/offwake-svg" || { fail valgrind "cannot copy $OFFWAKE"; exit 0; }
VG=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99
    --suppressions="$TOP/tests/valgrind/render.supp" --num-callers=30)

# vg NAME DIR INPUT ARGS...: render INPUT in DIR under valgrind.
vg() {
	local name=$1 dir=$2 in=$3; shift 3
	(cd "$dir" && timeout 600 "${VG[@]}" "$TMPD/offwake-svg" render "$@" "$in" \
		> "$TMPD/out.svg" 2> "$TMPD/vg.err")
	local st=$?
	if [ $st -eq 99 ] || grep -q '^==[0-9]*== ' "$TMPD/vg.err"; then
		fail "$name" "valgrind: $(grep '^==[0-9]*== ' "$TMPD/vg.err" | head -12 | tr '\n' ' ' | head -c 1200)"
	elif [ $st -ge 124 ]; then
		fail "$name" "exit $st (timeout or signal)"
	else
		pass "$name"
	fi
}

i=0
for args in "$G"/*.args; do
	[ -f "$args" ] || continue
	name=$(basename "$args" .args)
	[ -n "${VALGRIND_MAX:-}" ] && [ "$i" -ge "$VALGRIND_MAX" ] && break
	i=$((i + 1))
	d=$TMPD/g.$name; mkdir -p "$d"
	cp "$G/$name".* "$d/" 2>/dev/null
	[ -f "$d/$name.palette.map" ] && cp "$d/$name.palette.map" "$d/palette.map"
	read -r -a opts < "$args"
	vg "valgrind_golden_$name" "$d" "$G/$name.folded" "${opts[@]}"
	rm -rf "$d"
done

# hostile and odd inputs, every palette
printf 'main;</text><script>x</script>;a 3\nmain;\377\001\357\277\276;b 2\n-;--;x 1\n' > "$TMPD/h.folded"
printf 'a;b 18446744073709551616\na;c 0.5\nd 1 2\n\0\r\n' > "$TMPD/odd.folded"
python3 -c 'import sys; sys.stdout.write(";".join("f%d" % i for i in range(20000)) + " 1\n")' \
	> "$TMPD/deep.folded" 2>/dev/null
mkdir -p "$TMPD/h"
for c in hot chain java js perl wakeup mem io; do
	vg "valgrind_hostile_$c" "$TMPD/h" "$TMPD/h.folded" --colors=$c --cp --title='<x>' --notes='--'
done
vg valgrind_odd "$TMPD/h" "$TMPD/odd.folded" --inverted --flamechart
vg valgrind_empty "$TMPD/h" /dev/null
[ -s "$TMPD/deep.folded" ] && vg valgrind_deep "$TMPD/h" "$TMPD/deep.folded" --reverse
