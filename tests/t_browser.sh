#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_browser.sh - real-browser tests of the SVG (issue 5): renders graphs with
# $OFFWAKE render and has tests/browser/svg_test.js open them from file://,
# click, type and read the DOM, once in Debian's Chromium (driven by
# playwright-core) and once in Debian's firefox-esr (puppeteer-core, WebDriver
# BiDi); the checks are named "browser (chromium): ..." and "browser
# (firefox): ...".  Installs the browsers and npm packages when missing; skips
# a browser, saying why, only when it cannot be installed.  Keeps
# build/browser/chromium/chain.png and build/browser/firefox/chain.png.
. "$(dirname "$0")/lib.sh"
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}
ARTIFACTS=$TOP/build/browser

if [ ! -x "$OFFWAKE" ]; then
	fail browser "no binary at $OFFWAKE (run make first)"
	exit 0
fi

# ---- what the tests need: the browsers, node >= 20, the npm drivers ----
. "$TOP/tests/browser/setup.sh"
pick_browsers "browser"
[ -n "$browsers" ] || exit 0

# ---- inputs ----
D=$TMPD/svg
mkdir -p "$D"

cat > "$D/basic.folded" <<'EOF'
main;read;sys_read;vfs_read;ext4_file_read_iter 300
main;read;sys_read;vfs_read 100
main;read;sys_read;Read_Cache_Lookup 50
main;compute;inner;READ_helper 200
main;compute;inner 150
main;compute;crunch 120
main;write;sys_write;vfs_write 180
main;write;sys_write 20
other;work;thread_read 70
other;idle 40
EOF

# Time order: "init" runs twice, apart.
cat > "$D/flamechart.folded" <<'EOF'
main;init;load_config 30
main;run;work 50
main;run;io 20
main;init;load_config 10
main;init 5
EOF

cat > "$D/differential.folded" <<'EOF'
main;work;grew 100 300
main;work;shrank 300 100
main;work;same 200 200
main;other 50 60
EOF

cat > "$D/hostile.folded" <<'EOF'
main;</text><script>alert(1)</script> 400
main;"><svg onload=alert(1)> 300
main;<img src=x onerror=alert(1)>;]]><script>alert(2)</script> 200
main;&amp;&lt;&#x3c;;javascript:alert(3) 150
main;fn(int) (9 samples, 100%);it's 100
EOF

# A label wider than its frame (W is wider than the average glyph width
# labels are fitted with): zoomed to "right", the label of its neighbour
# on the left would be drawn into the view, stretched, unless hidden.
printf 'main;%s 100\nmain;right 100\nother 100\n' "$(printf 'W%.0s' $(seq 80))" > "$D/wide.folded"

# The chain example when the repository has one, else a small chain input.
if [ -f "$TOP/examples/offwake-tar-gzip.folded" ]; then
	cp "$TOP/examples/offwake-tar-gzip.folded" "$D/chain.folded"
else
	cat > "$D/chain.folded" <<'EOF'
tar;sys_read;vfs_read;pipe_read;schedule;--;gzip;sys_write;vfs_write;pipe_write;wake_up 5000
tar;sys_write;schedule;--;gzip;do_exit 1000
gzip;sys_read;pipe_read;schedule;--;tar;sys_write;pipe_write;wake_up 3000
gzip;sys_read;pipe_read;schedule;--;tar;-;ksoftirqd;run_timer 1500
EOF
fi

# 100,000 lines, deterministic: 8 services, a skewed module choice, then a
# random walk over a few thousand function names.
awk 'BEGIN {
	s = 12345
	for (i = 0; i < 100000; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; r = s / 2147483648
		line = "svc_" substr("ABCDEFGH", int(r * 8) + 1, 1)
		s = (s * 1103515245 + 12345) % 2147483648; r = s / 2147483648
		line = line ";mod_" int(50 * r * r * r)
		s = (s * 1103515245 + 12345) % 2147483648
		depth = 2 + s % 9
		for (d = 0; d < depth; d++) {
			s = (s * 1103515245 + 12345) % 2147483648
			line = line ";fn_" (s % (200 * (d + 1)))
		}
		s = (s * 1103515245 + 12345) % 2147483648
		print line " " (1 + s % 50)
	}
}' > "$D/big.folded"
check "browser: 100k-line input generated" [ "$(wc -l < "$D/big.folded")" -eq 100000 ]

# ---- render ----
render() {	# NAME INPUT [options...]
	local name=$1 in=$2; shift 2
	if "$OFFWAKE" render "$@" "$D/$in.folded" > "$D/$name.svg" 2> "$D/$name.err"; then
		pass "browser: render $name"
	else
		fail "browser: render $name" "exit $?: $(head -c 300 "$D/$name.err")"
		rm -f "$D/$name.svg"
	fi
}
render basic basic
render inverted basic --inverted
render flamechart flamechart --flamechart
render differential differential
printf 'compute\thref=#compute-docs\tid=fcompute\n' > "$D/attrs"
render nameattr basic --nameattr="$D/attrs"
render big big
render wide wide
render hostile hostile --title='<script>alert(1)</script>' \
	--subtitle='"><svg onload=alert(1)>' --nametype='</script><b>]]>:'
render chain chain --colors=chain --countname=us

# ---- drive the browsers, one after the other ----
for b in $browsers; do
	mkdir -p "$ARTIFACTS/$b"
	CHROMIUM=$CHROMIUM FIREFOX=$FIREFOX node "$BROWSER_DIR/svg_test.js" "$D" "$ARTIFACTS/$b" "$b" |
		sed -u "s/^\(PASS\|FAIL\|SKIP\): browser: /\1: browser ($b): /"
	st=${PIPESTATUS[0]}
	[ "$st" -eq 0 ] || fail "browser ($b): svg_test.js" "exited with status $st"
done

# ---- the same checks with zooms drawn in the SVG itself (no canvas) ----
# fg_config's "canvas":false makes the script zoom the SVG's own frames, as
# it does where a browser has no canvas in a foreignObject.  Once, in the
# first browser.
b=${browsers%% *}
b=${b:-chromium}
mkdir -p "$D/dom" "$ARTIFACTS/$b-dom"
for f in "$D"/*.svg; do
	sed 's/^var fg_config = {/var fg_config = {"canvas":false,/' "$f" > "$D/dom/$(basename "$f")"
done
cp "$D"/*.folded "$D/dom/"
if grep -q '^var fg_config = {"canvas":false,' "$D/dom/basic.svg"; then
	SVG_ZOOM=dom CHROMIUM=$CHROMIUM FIREFOX=$FIREFOX node "$BROWSER_DIR/svg_test.js" "$D/dom" "$ARTIFACTS/$b-dom" "$b" |
		sed -u "s/^\(PASS\|FAIL\|SKIP\): browser: /\1: browser ($b, zoom in the SVG): /"
	st=${PIPESTATUS[0]}
	[ "$st" -eq 0 ] || fail "browser ($b, zoom in the SVG): svg_test.js" "exited with status $st"
else
	fail "browser: zoom in the SVG" "no fg_config line to set \"canvas\":false in"
fi
exit 0
