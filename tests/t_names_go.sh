#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_names_go.sh - a stripped Go program built by someone else, named from
# its pclntab end to end (src/symbols/gopclntab.c through a capture):
# Debian's hugo (no .symtab; its Go may differ from the golang-go that
# tests/t_names.sh builds with), serving an empty site on 127.0.0.1 and
# idle, captured with -p for 2 s.  Its threads block in the Go scheduler
# (runtime.mcall, runtime.park_m, runtime.futex, ...): those frames must be
# named, and few of hugo's frames left as [hugo] (file-named: no symbol).
. "$(dirname "$0")/lib.sh"
can_capture names_go_hugo || exit 0
if ! command -v hugo > /dev/null && [ "$(id -u)" = 0 ]; then
	sh "$TOP/tests/deps.sh" hugo > /dev/null 2>&1
fi
if ! command -v hugo > /dev/null; then
	skip names_go_hugo "hugo is not installed (Debian's hugo could not be installed)"
	exit 0
fi
HP=
trap '[ -n "$HP" ] && kill "$HP" 2> /dev/null; rm -rf "$TMPD"' EXIT
cd "$TMPD" || exit 1
# nothing of the user's: a home, cache and site here
export HOME=$TMPD HUGO_CACHEDIR=$TMPD/cache XDG_CONFIG_HOME=$TMPD/config
if ! hugo new site site > new.log 2>&1; then
	skip names_go_hugo "hugo new site failed: $(head -c 300 new.log)"
	exit 0
fi
cd site || exit 1
# a free port: another helper's server may hold one
for try in 1 2 3 4 5; do
	port=$((20000 + (RANDOM * 2 + try) % 30000))
	hugo server --bind 127.0.0.1 --port "$port" --disableLiveReload > ../server.log 2>&1 & HP=$!
	for _ in $(seq 100); do
		grep -q 'Web Server is available' ../server.log && break
		kill -0 "$HP" 2> /dev/null || break
		sleep 0.1
	done
	grep -q 'Web Server is available' ../server.log && break
	kill "$HP" 2> /dev/null; wait "$HP" 2> /dev/null; HP=
done
cd .. || exit 1
if [ -z "$HP" ]; then
	skip names_go_hugo "hugo server did not start: $(tail -c 300 server.log)"
	exit 0
fi
t0=$(date +%s%N)
cap hugo -p "$HP" 2
st=$?
ms=$((($(date +%s%N) - t0) / 1000000))
# hugo's blocked user frames: from its comm to the first empty field
read -r stacks frames file rt < <(awk '/^hugo;/ {
	sub(/ [0-9]+$/, ""); n = split($0, f, ";")
	stacks++
	for (i = 2; i <= n && f[i] != ""; i++) {
		frames++
		if (f[i] == "[hugo]") file++
		if (f[i] ~ /^runtime\.(mcall|park_m|gopark|futex|notesleep|epollwait|usleep|schedule)$/) rt++
	}
} END { print stacks + 0, frames + 0, file + 0, rt + 0 }' hugo)
echo "  (capture of hugo: ${ms} ms; $stacks stacks, $frames user frames, $file [hugo], $rt Go scheduler frames)"
if [ "$st" -ne 0 ] || [ "$stacks" -eq 0 ]; then
	fail names_go_hugo_runtime "capture exit $st, $stacks hugo stacks: $(head -c 300 hugo.err)"
elif [ "$rt" -gt 0 ]; then
	pass names_go_hugo_runtime
else
	fail names_go_hugo_runtime "no runtime.mcall/park_m/gopark/futex... frame in hugo's stacks: $(grep '^hugo;' hugo | head -3 | cut -c1-300)"
fi
if [ "$frames" -gt 0 ] && [ $((file * 100 / frames)) -lt 20 ]; then
	pass names_go_hugo_few_unnamed
else
	fail names_go_hugo_few_unnamed "$file of $frames user frames of hugo are [hugo] (want < 20%): $(grep '^hugo;' hugo | grep -F '[hugo]' | head -2 | cut -c1-300)"
fi
