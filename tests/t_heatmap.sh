#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_heatmap.sh - the heat map of an SVG with events (issue 46) in the real
# browsers: build/tests/t_svg_events writes the SVG of its in-memory
# profile (80 ms stalls at known times), tests/browser/heatmap_test.js
# opens it in Debian's Chromium and firefox-esr (tests/browser/setup.sh
# installs them when missing; a browser is skipped only when it cannot be).
. "$(dirname "$0")/lib.sh"
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
GEN=$TOP/build/tests/t_svg_events

if [ ! -x "$GEN" ]; then
	fail heatmap "no $GEN (run make test-bin first)"
	exit 0
fi
. "$TOP/tests/browser/setup.sh"
pick_browsers "heatmap"
[ -n "$browsers" ] || exit 0

if "$GEN" "$TMPD/heat.svg" > "$TMPD/gen.out" && [ -s "$TMPD/heat.svg" ]; then
	pass "heatmap: SVG with events written"
else
	fail "heatmap: SVG with events written" "$(grep FAIL "$TMPD/gen.out" | head -3)"
	exit 0
fi
for b in $browsers; do
	CHROMIUM=$CHROMIUM FIREFOX=$FIREFOX node "$BROWSER_DIR/heatmap_test.js" "$TMPD/heat.svg" "$b" |
		sed -u "s/^\(PASS\|FAIL\|SKIP\): heatmap: /\1: heatmap ($b): /"
	st=${PIPESTATUS[0]}
	[ "$st" -eq 0 ] || fail "heatmap ($b): heatmap_test.js" "exited with status $st"
done
exit 0
