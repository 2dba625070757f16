#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_install.sh - make install/uninstall with DESTDIR and PREFIX, the man page,
# bash completion, and the GNU --help/--version conventions.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
d=$TMPD/root
make -s install DESTDIR="$d" PREFIX=/opt/ow > "$TMPD/log" 2>&1
for f in bin/offwake-svg share/man/man8/offwake-svg.8 share/bash-completion/completions/offwake-svg \
	share/offwake-svg/palettes/chain.rules share/offwake-svg/palettes/flat.pal; do
	check "install puts $f" test -f "$d/opt/ow/$f"
done
check "installed binary runs" sh -c "\"$d/opt/ow/bin/offwake-svg\" --version > /dev/null"
if command -v man > /dev/null; then
	out=$(MANWIDTH=80 man -l "$d/opt/ow/share/man/man8/offwake-svg.8" 2> "$TMPD/man.err")
	if grep -q -- "--stack-storage-size" <<< "$out" && grep -q "EXIT STATUS" <<< "$out" &&
	   [ ! -s "$TMPD/man.err" ]; then
		pass "man page renders with options and exit statuses"
	else
		fail "man page renders with options and exit statuses" "$(head -1 "$TMPD/man.err")"
	fi
else
	skip "man page renders" "man is not installed"
fi
# every capture and render option is documented in the man page
missing=""
n=0
for o in $("$OFFWAKE" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	case $o in --help|--version) continue ;; esac
	n=$((n + 1))
	grep -q -- "${o//-/\\\\-}" "$d/opt/ow/share/man/man8/offwake-svg.8" || missing="$missing $o"
done
[ -z "$missing" ] && [ $n -ge 30 ] && pass "man page documents every option" || fail "man page documents every option" "$n options seen; missing:$missing"
comp=$(bash -c ". '$d/opt/ow/share/bash-completion/completions/offwake-svg'
	COMP_WORDS=(offwake-svg render --col); COMP_CWORD=2; _offwake_svg; echo \"\${COMPREPLY[*]}\"
	COMP_WORDS=(offwake-svg --colors ch); COMP_CWORD=2; _offwake_svg; echo \"\${COMPREPLY[*]}\"")
[ "$comp" = $'--colors\nchain' ] && pass "bash completion" || fail "bash completion" "got: $comp"
make -s uninstall DESTDIR="$d" PREFIX=/opt/ow > /dev/null 2>&1
left=$(find "$d" -type f | wc -l)
[ "$left" -eq 0 ] && pass "uninstall removes every file" || fail "uninstall removes every file" "$left left"
# GNU conventions: --help and --version to stdout, exit 0
for cmd in "--help" "--version" "render --help"; do
	out=$("$OFFWAKE" $cmd 2> "$TMPD/err"); st=$?
	if [ $st -eq 0 ] && [ -n "$out" ] && [ ! -s "$TMPD/err" ]; then
		pass "offwake-svg $cmd: stdout, exit 0"
	else
		fail "offwake-svg $cmd: stdout, exit 0" "status $st"
	fi
done
"$OFFWAKE" --version | head -1 | grep -qE '^offwake-svg [0-9]+\.[0-9]+' &&
	pass "--version first line is 'offwake-svg VERSION'" || fail "--version format" "$("$OFFWAKE" --version | head -1)"
