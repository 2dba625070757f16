#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_hostile.sh - the SVG is injection-proof: hostile frame names (folded
# input, and comm names of a real capture when root), hostile option strings
# and a hostile palette.map (--cp) must give a well-formed document whose
# elements and attributes all come from us.  tests/tools/svgcheck.c checks
# each document with libxml2 (no network, no entities): well-formed; only
# svg/defs/linearGradient/stop/style/script/rect/text/g/title/a; exactly one
# <script>; no on* attribute but the root's onload="init(evt)"; attribute
# names only flamegraph.pl's; and, for names that are valid XML text, the
# name is found as text (<text>/<title>) and nowhere else.
# --nameattr files stay raw by design (spec 15.4) and are not tested here.
. "$(dirname "$0")/lib.sh"
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
OFFWAKE=${OFFWAKE:-$TOP/offwake-svg}

svgcheck hostile || exit 0
if [ ! -x "$OFFWAKE" ]; then
	fail hostile "no binary $OFFWAKE"
	exit 0
fi

cd "$TMPD" || exit 1	# --cp reads and writes palette.map in the current directory
n=0
# svg NAME FOLDED_FILE CHECKARGS... :: RENDERARGS...: render, then check.
# A usage error (exit 255, message, no output) is accepted when
# HOSTILE_ALLOW_REFUSAL=1 (for option values that are simply invalid).
svg() {
	local name=$1 in=$2; shift 2
	local chk=() st
	while [ $# -gt 0 ] && [ "$1" != :: ]; do chk+=("$1"); shift; done
	shift
	n=$((n + 1))
	local out=$TMPD/out.$n.svg
	timeout 60 "$OFFWAKE" render "$@" "$in" > "$out" 2> "$TMPD/err.$n"; st=$?
	if [ $st -eq 255 ] && [ "${HOSTILE_ALLOW_REFUSAL:-0}" = 1 ] && [ ! -s "$out" ] &&
	   grep -q . "$TMPD/err.$n"; then
		pass "$name"
		return
	fi
	if [ $st -ne 0 ] && [ $st -ne 2 ]; then
		fail "$name" "render exit $st: $(head -c 300 "$TMPD/err.$n")"
		return
	fi
	if "$SVGCHECK" "${chk[@]}" "$out" 2> "$TMPD/chk.$n"; then
		pass "$name"
		rm -f "$out"
	else
		fail "$name" "$(tr '\n' ' ' < "$TMPD/chk.$n" | head -c 400) (kept: $out; args: $*)"
		cp "$out" "$TOP/build/hostile-$name.svg" 2>/dev/null
	fi
}

# ---- hostile frame names ---------------------------------------------------
# Valid XML text: each must come out as text, verbatim.
text_names=(
	'</text><script>alert(1)</script>'
	'"><svg onload=alert(1)>'
	"'><svg onload=alert(1)>"
	']]>'
	'<!--'
	'-->'
	'<![CDATA[x]]>'
	'&amp &lt &#0 &#x1 &e &#x3c'
	'<?xml-stylesheet href="x.css"?>'
	'<!DOCTYPE x [<!ENTITY e "x">]>'
	'</title><a xlink:href="javascript:alert(1)">x</a>'
	'x" onmouseover="alert(1)" y="'
	'</g></svg><script>alert(1)</script><svg>'
	'\"+alert(1)+\"'
	'</script><script>alert(1)</script>'
)
i=0
for nm in "${text_names[@]}"; do
	i=$((i + 1))
	# the name at the root, in the middle and as the leaf, plus siblings
	printf '%s;mid 3\nmain;%s;leaf 5\nmain;%s 2\nmain;other 1\n' "$nm" "$nm" "$nm" > "$TMPD/n$i.folded"
	svg "name${i}_default" "$TMPD/n$i.folded" -a -n "$nm" ::
	svg "name${i}_chain_inverted" "$TMPD/n$i.folded" -a -n "$nm" :: --colors=chain --inverted
	svg "name${i}_flamechart_hash" "$TMPD/n$i.folded" -a -n "$nm" :: --flamechart --hash --colors=java
	svg "name${i}_reverse_narrow" "$TMPD/n$i.folded" -a -N "$nm" :: --reverse --width=200
	printf 'main;%s 5 2\nmain;x 1 4\n' "$nm" > "$TMPD/d$i.folded"
	svg "name${i}_differential" "$TMPD/d$i.folded" -a -n "$nm" :: --negate
done

# "--" occurs in the script ("i--"): markup checks only
printf -- '--;mid 3\nmain;--;leaf 5\nmain;-- 2\n' > "$TMPD/dd.folded"
svg name_dashdash "$TMPD/dd.folded" -a ::
svg name_dashdash_chain "$TMPD/dd.folded" -a :: --colors=chain

# 4 KB names with markup all through them.
big=$(python3 -c 'print(("<a>&\"\x27]]>--" * 400)[:4096])' 2>/dev/null || \
	printf '<a>&"]]>--%.0s' $(seq 410) | head -c 4096)
printf 'main;%s;x 5\nmain;%s 1\n' "$big" "$big" > "$TMPD/big.folded"
svg name_4k "$TMPD/big.folded" -a -n "$big" ::
svg name_4k_wide "$TMPD/big.folded" -a -n "$big" :: --width=100000
svg name_4k_cp "$TMPD/big.folded" -a :: --cp

# Names that cannot be XML text as they are: control characters, invalid
# UTF-8, U+FFFE/U+FFFF, surrogates, overlongs.  Well-formed, with U+FFFD.
bad=()
for c in 01 02 03 04 05 06 07 08 0b 0c 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f; do
	bad+=("x\\x${c}y")
done
bad+=('a\x7fb' 'a\tb' 'a\rb' '\xff' '\xfe\xff' 'a\xc0\x80b' 'a\xc1\xbfb' 'a\xe2\x82' 'a\xe2\x82\x28'
      '\xed\xa0\x80' '\xed\xbf\xbf' '\xf4\x90\x80\x80' '\xf8\x88\x80\x80\x80' '\x80\x80'
      'a\xef\xbf\xbeb' 'a\xef\xbf\xbfb' '\xef\xbb\xbfbom' '\xf0\x9f\x94\xa5ok')
i=0
for b in "${bad[@]}"; do
	i=$((i + 1))
	printf "main;$b;leaf 3\n$b 1\nmain;$b 2\n" > "$TMPD/b$i.folded"
	svg "badname${i}" "$TMPD/b$i.folded" -a :: --colors=chain
	svg "badname${i}_inv" "$TMPD/b$i.folded" -a :: --inverted --flamechart --width=100
done
# every byte value except ';', '\n' and NUL, in one name
python3 -c 'import sys; sys.stdout.buffer.write(b"main;" + bytes(b for b in range(1, 256) if b not in (10, 59)) + b" 7\n")' \
	> "$TMPD/allbytes.folded" 2>/dev/null && svg badname_allbytes "$TMPD/allbytes.folded" -a ::
# control characters become U+FFFD, not dropped (spec 15.3)
printf 'main;a\001b 3\n' > "$TMPD/ctl.folded"
"$OFFWAKE" render "$TMPD/ctl.folded" 2>/dev/null | grep -q $'a\xef\xbf\xbdb' && pass ctl_to_fffd ||
	fail ctl_to_fffd "a\\001b did not become aU+FFFDb"
printf 'main;a\377b 3\n' > "$TMPD/inv.folded"
"$OFFWAKE" render "$TMPD/inv.folded" 2>/dev/null | grep -q $'a\xef\xbf\xbdb' && pass invalid_utf8_to_fffd ||
	fail invalid_utf8_to_fffd "a\\377b did not become aU+FFFDb"

# ---- hostile option strings ------------------------------------------------
printf 'main;a 3\nmain;b 2\nother 1\n' > "$TMPD/plain.folded"
opt_vals=(
	'</text><script>alert(1)</script>'
	'"><svg onload=alert(1)>'
	"'><svg onload=alert(1)>"
	']]>'
	'<!--'
	'-->'
	'a--b---c-&'
	'}</style><script>alert(1)</script><style>{'
	'x;} text { fill:red } @import url(//x);'
	'\"};alert(1);//'
	'</script><script>alert(1)</script>'
	$'ctl\x01\x02\x1f\x7fend'
	$'bad\xff\xfeutf8'
	$'ov\xc0\x80x\xed\xa0\x80y'
	$'nc\xef\xbf\xbe\xef\xbf\xbfz'
	"$big"
)
i=0
for v in "${opt_vals[@]}"; do
	i=$((i + 1))
	# title, subtitle, countname: shown as text; the needle check applies
	# when the value is valid XML text as it is
	needle=(-N "$v")
	case $v in *[$'\x01'-$'\x08\x0b\x0c\x0e'-$'\x1f']* | *$'\xff'* | *$'\xc0'* | *$'\xef\xbf\xbe'*) needle=() ;; esac
	svg "opt${i}_title" "$TMPD/plain.folded" -a "${needle[@]}" :: --title="$v"
	svg "opt${i}_subtitle" "$TMPD/plain.folded" -a "${needle[@]}" :: --subtitle="$v"
	svg "opt${i}_countname" "$TMPD/plain.folded" -a "${needle[@]}" :: --countname="$v"
	# nametype goes into the script (JSON), notes into a comment, fonttype
	# into the style sheet: no needle check, the markup checks apply
	svg "opt${i}_nametype" "$TMPD/plain.folded" -a :: --nametype="$v"
	svg "opt${i}_notes" "$TMPD/plain.folded" -a :: --notes="$v"
	svg "opt${i}_fonttype" "$TMPD/plain.folded" -a :: --fonttype="$v"
	svg "opt${i}_all" "$TMPD/plain.folded" -a :: --title="$v" --subtitle="$v" \
		--countname="$v" --nametype="$v" --notes="$v" --fonttype="$v" --colors=chain --inverted
	# --bgcolors and --encoding: a clear refusal is fine too
	HOSTILE_ALLOW_REFUSAL=1 svg "opt${i}_bgcolors" "$TMPD/plain.folded" -a :: --bgcolors="$v"
	# (a syntactically valid encoding name that libxml2 does not know is
	# not the renderer's fault: only values that are not EncNames here)
	HOSTILE_ALLOW_REFUSAL=1 svg "opt${i}_encoding" "$TMPD/plain.folded" -a :: --encoding="$v"
done
HOSTILE_ALLOW_REFUSAL=1 svg bgcolors_quote "$TMPD/plain.folded" -a :: --bgcolors='#"><x>'
HOSTILE_ALLOW_REFUSAL=1 svg bgcolors_quote2 "$TMPD/plain.folded" -a :: --bgcolors='#fff"/><script>alert(1)</script><x a="'
HOSTILE_ALLOW_REFUSAL=1 svg encoding_pi "$TMPD/plain.folded" -a :: --encoding='UTF-8"?><x/><?x a="'
# a hostile name and hostile options together, on the error SVG too
svg opt_and_name "$TMPD/n1.folded" -a :: --title='</text><x>' --countname='"><x>' --notes='-->'
: > "$TMPD/empty.folded"
svg error_svg_title "$TMPD/empty.folded" -a -e :: --title='</text><script>alert(1)</script>' \
	--subtitle='<x>' --notes='-->' --nametype='</script>' --fonttype='}<x>'

# ---- palette.map (--cp) ----------------------------------------------------
mkdir -p "$TMPD/cp"
pal_vals=(
	'rgb(1,2,3)" onmouseover="alert(1)'
	'rgb(1,2,3)"><script>alert(1)</script><x a="'
	'</title><script>alert(1)</script>'
	$'rgb(1,2,3)\x01'
	$'rgb(\xff)'
	'&lt;'
)
i=0
for pv in "${pal_vals[@]}"; do
	i=$((i + 1))
	printf 'main->%s\na->%s\n%s->rgb(0,0,0)\n' "$pv" "$pv" '</text><script>alert(2)</script>' > "$TMPD/cp/palette.map"
	printf 'main;a 3\nmain;</text><script>alert(2)</script> 2\n' > "$TMPD/cp/in.folded"
	cd "$TMPD/cp" || exit 1
	svg "palette${i}" in.folded -a :: --cp
	# and palette.map as written back must still be usable
	svg "palette${i}_again" in.folded -a :: --cp
	cd "$TOP" || exit 1
done

# ---- captured names (root, BPF): a thread whose comm is markup ------------
if [ "$(id -u)" -ne 0 ] || [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip hostile_capture "needs root and kernel BTF"
elif ! command -v python3 > /dev/null; then
	skip hostile_capture "needs python3 to name a thread"
else
	# comm is at most 15 bytes: "<script>a</x>" and a quote-breaker
	python3 - "$TMPD/comm.pid" <<'PY' &
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None)
def worker(name, r, w):
    libc.prctl(15, name, 0, 0, 0)          # PR_SET_NAME
    for _ in range(4000):     # ~20 s: outlives a capture that loads slowly
        os.write(w, b"x"); os.read(r, 1); time.sleep(0.005)
r1, w1 = os.pipe(); r2, w2 = os.pipe()
a = threading.Thread(target=worker, args=(b"</text><x>\"'", r1, w2))
b = threading.Thread(target=worker, args=(b"\x01\xff<!--]]>", r2, w1))
a.start(); b.start()
open(sys.argv[1], "w").write(str(os.getpid()))
a.join(); b.join()
PY
	CP=$!
	for _ in $(seq 50); do [ -s "$TMPD/comm.pid" ] && break; sleep 0.1; done
	timeout 60 "$OFFWAKE" -p "$(cat "$TMPD/comm.pid")" -o "$TMPD/comm.svg" 2 2> "$TMPD/comm.err"; st=$?
	kill $CP 2>/dev/null
	wait $CP 2>/dev/null
	if [ $st -ne 0 ]; then
		fail hostile_capture "capture exit $st: $(head -c 300 "$TMPD/comm.err")"
	elif ! grep -aq 'text&gt;' "$TMPD/comm.svg"; then
		fail hostile_capture "the thread name </text><x> is not in the SVG (kept: $TMPD/comm.svg)"
	elif "$SVGCHECK" -a -N '</text><x>' "$TMPD/comm.svg" 2> "$TMPD/comm.chk"; then
		pass hostile_capture
	else
		fail hostile_capture "$(cat "$TMPD/comm.chk")"
	fi
fi
