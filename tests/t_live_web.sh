#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_live_web.sh - the browser live view (--serve [ADDR:]PORT, issue 32
# item 2): --interval's and --serve's bad values; then, as root, captures
# of a workload under -- CMD with --serve 127.0.0.1:0 (any free port, read
# from the address printed, whose token every request carries: lib.sh's
# live_serve; t_harden_web asks without it), asked with curl: the page, /status and the
# SVG's generations advancing, the downloads valid (svgcheck, the folded
# parser of "offwake-svg render", gzip and go tool pprof), 405 for other
# methods, 403 for a Host that is not loopback, the final output and the
# summary; a client that connects and never reads (nor sends a whole
# request) does not hold the capture up; the warning for an address that
# is not loopback; a port in use fails at once; without --serve nothing
# listens.  With --timeline (tests/workloads/stall.c: 80 ms stalls every
# half second): the SVG has the heat map, more columns at a later
# generation, the stalls' blocks in its data; OFFWAKE_SNAPSHOT's SVG
# written mid-capture has them too; without --timeline, no map.  Then
# tests/browser/live_test.js drives the page in headless Chromium and
# Firefox (tests/browser/driver.js): updates arrive, the zoom, the search
# and the scroll survive an update, Pause stops updates, the download
# links give valid files, no heat map; Ctrl-C then writes the output; and
# tests/browser/live_map_test.js the heat map of a --timeline capture
# (grows, hot stalls, a range chosen and kept across updates, reset).
# Every request goes to 127.0.0.1.
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads
ERR_INTERVAL="--interval: expected seconds (> 0, at most 3600):"

# ---- bad values: one line naming the problem, status 2 ----
for v in 0 -1 abc 3601 nan inf 1x ""; do
	out=$("$OFFWAKE" --interval "$v" 1 2>&1 >/dev/null); st=$?
	if [ $st -eq 2 ] && grep -qxF "offwake-svg: error: $ERR_INTERVAL '$v'" <<< "$out"; then
		pass "live_web: --interval '$v' refused"
	else
		fail "live_web: --interval '$v' refused" "status $st: $out"
	fi
done
for v in abc 70000 1.2.3:80 '[::1]8080' localhost: :80 '::1:80' 127.0.0.1:-1; do
	out=$("$OFFWAKE" --serve "$v" 1 2>&1 >/dev/null); st=$?
	if [ $st -eq 2 ] && grep -qF -- "--serve: expected [ADDR:]PORT" <<< "$out" && grep -qF "'$v'" <<< "$out"; then
		pass "live_web: --serve '$v' refused"
	else
		fail "live_web: --serve '$v' refused" "status $st: $out"
	fi
done

can_capture live_web || exit 0
svgcheck live_web_svg || SVGCHECK=
for w in sleeper manypaths stall; do
	if ! cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/$w" "$WL/$w.c"; then
		fail live_web_build "cannot compile $w.c"
		exit 0
	fi
done
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$TMPD"' EXIT

# get PATH [curl args]: the body on stdout, the status as $CODE; PATH is
# under the address printed (/svg: http://127.0.0.1:PORT/TOKEN/svg)
get() {
	local p=$1; shift
	CODE=$(curl -s -o "$TMPD/body" -D "$TMPD/headers" -w '%{http_code}' --max-time 20 "$@" \
		"$LIVE_URL${p#/}")
}
header() { tr -d '\r' < "$TMPD/headers" | sed -n "s/^$1: //Ip" | head -1; }
valid_svg() { if [ -n "$SVGCHECK" ]; then "$SVGCHECK" -n "$2" "$1" 2> /dev/null; else grep -q "$2" "$1" && tail -c 10 "$1" | grep -q '</svg>'; fi; }

# ---- curl: the page, generations, downloads, methods ----
if ! live_serve curl --serve 127.0.0.1:0 --interval 0.5 -o "$TMPD/final.svg" -- "$TMPD/sleeper" 6; then
	fail live_web_start "no address printed: $(head -c 400 "$TMPD/curl.err")"
	exit 0
fi
pass live_web_start
get /
check "live_web: the page" [ "$CODE" = 200 ] && grep -q offwake_live "$TMPD/body" &&
	[[ "$(header Content-Type)" == text/html* ]]
get / -I
check "live_web: HEAD of the page" [ "$CODE" = 200 ]

# the SVG's generations advance, every one a valid SVG of the workload
g1=; g2=; ok=1
for _ in $(seq 60); do
	get /svg
	g=$(header X-Offwake-Generation)
	if [ "$CODE" = 200 ] && [ -n "$g" ]; then
		valid_svg "$TMPD/body" ow_sleep || { ok=; cp "$TMPD/body" "$TMPD/bad.svg"; }
		[ -z "$g1" ] && g1=$g
		[ "$g" -gt "$g1" ] && { g2=$g; break; }
	fi
	sleep 0.1
done
if [ -n "$g2" ] && [ -n "$ok" ]; then
	pass "live_web: SVG generations advance ($g1 -> $g2), each valid"
else
	fail "live_web: SVG generations advance" "first $g1, then ${g2:-none}; all valid: ${ok:-no}"
fi
if grep -qE 'id="heatmap"|fg_heat' "$TMPD/body"; then
	fail "live_web: without --timeline, no heat map" "the SVG has one"
else
	pass "live_web: without --timeline, no heat map"
fi
get /status
check "live_web: /status names the generation" grep -qE '^\{"generation":[0-9]+,"interval":0.5,"seconds":[0-9.]+,"running":true\}$' "$TMPD/body"

get /svg -G -d download=1
check "live_web: the SVG as a download" [ "$(header Content-Disposition)" = 'attachment; filename="offwake.svg"' ]
get /folded
cp "$TMPD/body" "$TMPD/live.folded"
if [ "$CODE" = 200 ] && [ -s "$TMPD/live.folded" ] && ! grep -qvE '^[^ ].* [0-9]+$' "$TMPD/live.folded" &&
   grep -q '^ow_sleep;' "$TMPD/live.folded" &&
   "$OFFWAKE" render "$TMPD/live.folded" > "$TMPD/folded.svg" 2> /dev/null && valid_svg "$TMPD/folded.svg" ow_sleep; then
	pass "live_web: folded download parses (render) and has the workload"
else
	fail "live_web: folded download" "status $CODE: $(head -c 300 "$TMPD/live.folded")"
fi
get /pprof
cp "$TMPD/body" "$TMPD/live.pb.gz"
if [ "$CODE" = 200 ] && gzip -t "$TMPD/live.pb.gz" 2> /dev/null; then
	pass "live_web: pprof download is gzip"
else
	fail "live_web: pprof download is gzip" "status $CODE, $(wc -c < "$TMPD/live.pb.gz") bytes"
fi
if command -v go > /dev/null; then
	if go tool pprof -raw -symbolize=none "$TMPD/live.pb.gz" 2> "$TMPD/pprof.err" | grep -q 'sleep_once'; then
		pass "live_web: go tool pprof reads the pprof download"
	else
		fail "live_web: go tool pprof reads the pprof download" "$(head -c 300 "$TMPD/pprof.err")"
	fi
else
	skip "live_web: go tool pprof reads the pprof download" "no go"
fi
for m in POST PUT DELETE PATCH; do
	get /svg -X "$m" -d x
	check "live_web: $m is refused (405, Allow: GET, HEAD)" [ "$CODE" = 405 ] && [ "$(header Allow)" = "GET, HEAD" ]
done
get /status -H 'Host: attacker.example:80'
check "live_web: a Host that is not loopback is refused (DNS rebinding)" [ "$CODE" = 403 ]
get /status -H "Host: localhost:$PORT"
check "live_web: Host localhost is answered" [ "$CODE" = 200 ]
get /nothing-here
check "live_web: 404 elsewhere" [ "$CODE" = 404 ]
wait "$CAP"; st=$?
if [ $st -eq 0 ] && valid_svg "$TMPD/final.svg" ow_sleep; then
	pass "live_web: the output is written as without --serve"
else
	fail "live_web: the output" "status $st: $(tail -c 300 "$TMPD/curl.err")"
fi
n=$(sed -n 's/.*live view: \([0-9]*\) refreshes.*/\1/p' "$TMPD/curl.err")
check "live_web: the summary counts the refreshes (${n:-none})" [ "${n:-0}" -ge 5 ]

# ---- --timeline: the heat map, growing; in the snapshot too ----
# map_svg FILE NAME: FILE is well-formed XML with a frame NAME and the
# heat map (svgcheck takes the map's cells for bad frames);
# ncols FILE: the heat map's columns in an SVG's data (0: no map);
# stalls FILE: its blocks of worker_wait's stacks at least 70 ms long
map_svg() {
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1" 2> /dev/null &&
		grep -q "<title>$2 (" "$1" && grep -q 'id="heatmap"' "$1"
}
ncols() { local n; n=$(grep -o '"ncols":[0-9]*' "$1" 2> /dev/null | head -1); echo "${n#*:}" | sed 's/^$/0/'; }
stalls() {
	python3 - "$1" <<'EOF'
import json, re, sys
try:
    s = open(sys.argv[1], encoding="utf-8").read()
except OSError:
    s = ""
m = re.search(r"var fg_heat = (\{.*?\});\n", s, re.S)
h = json.loads(m.group(1)) if m else {"frames": [], "stacks": [], "ev": []}
ww = {i for i, st in enumerate(h["stacks"]) if any(h["frames"][k][0] == "worker_wait" for k in st)}
ev = h["ev"]
print(sum(1 for i in range(0, len(ev) - 2, 3) if ev[i] in ww and ev[i + 2] >= 70000))
EOF
}
if OFFWAKE_SNAPSHOT=$TMPD/snap.svg live_serve tl --serve 127.0.0.1:0 --interval 0.5 --timeline \
	-o "$TMPD/tl.svg" -- "$TMPD/stall" 6 80 "$TMPD/tl.tids"; then
	get /status	# (a client looking: each refresh renders)
	sleep 2
	get /svg; cp "$TMPD/body" "$TMPD/tl1.svg"; g1=$(header X-Offwake-Generation)
	cp "$TMPD/snap.svg" "$TMPD/snap1.svg" 2> /dev/null
	sleep 1.5
	get /svg; cp "$TMPD/body" "$TMPD/tl2.svg"; g2=$(header X-Offwake-Generation)
	n1=$(ncols "$TMPD/tl1.svg") n2=$(ncols "$TMPD/tl2.svg") s1=$(stalls "$TMPD/tl1.svg") s2=$(stalls "$TMPD/tl2.svg")
	if map_svg "$TMPD/tl1.svg" worker_wait && map_svg "$TMPD/tl2.svg" worker_wait &&
	   [ "$n2" -gt "$n1" ] && [ "$n1" -ge 1 ] && [ "$s1" -ge 2 ] && [ "$s2" -gt "$s1" ]; then
		pass "live_web: --timeline: the SVG's heat map grows (generation $g1: $n1 columns, $s1 stalls; $g2: $n2, $s2)"
	else
		fail "live_web: --timeline: the SVG's heat map grows" "generation $g1: $n1 columns, $s1 stalls; $g2: $n2, $s2"
	fi
	wait "$CAP"; st=$?
	n3=$(ncols "$TMPD/tl.svg") s3=$(stalls "$TMPD/tl.svg")
	ns=$(ncols "$TMPD/snap1.svg") ss=$(stalls "$TMPD/snap1.svg")
	if [ $st -eq 0 ] && map_svg "$TMPD/snap1.svg" worker_wait && [ "$ns" -ge 1 ] && [ "$ss" -ge 1 ] &&
	   [ "$n3" -gt "$ns" ] && [ "$s3" -gt "$ss" ]; then
		pass "live_web: --timeline: the snapshot written mid-capture has the events so far ($ns columns, $ss stalls; at the end $n3, $s3)"
	else
		fail "live_web: --timeline: the snapshot has the events so far" "status $st; snapshot: $ns columns, $ss stalls; at the end $n3, $s3"
	fi
else
	fail "live_web: --timeline" "no address printed: $(head -c 300 "$TMPD/tl.err")"
fi

# ---- a client that never reads does not hold the capture up ----
# A big SVG (4096 paths a side), a receive buffer of 4 KB and 40 requests
# sent at once: the server's send blocks; a second client sends nothing,
# a third half a request.  The capture must still end when its CMD does.
cat > "$TMPD/stuck.py" <<'EOF'
import socket, sys, time
port, path = int(sys.argv[1]), sys.argv[3].encode()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(("127.0.0.1", port))
s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 40)
t = socket.create_connection(("127.0.0.1", port))
u = socket.create_connection(("127.0.0.1", port))
u.sendall(b"GET " + path + b" HTTP/1.1\r\nHo")
print("connected", flush=True)
time.sleep(float(sys.argv[2]))
EOF
if live_serve stuck --serve 127.0.0.1:0 --interval 0.3 -o "$TMPD/stuck.svg" -- "$TMPD/manypaths" 4 4096 &&
   attached "$CAP"; then
	t0=$(date +%s.%N)	# CMD runs 4 s from about now
	for _ in $(seq 40); do	# an SVG bigger than the socket buffers
		get /svg -I
		[ "$(header Content-Length)" -gt 2000000 ] 2> /dev/null && break
		sleep 0.1
	done
	python3 "$TMPD/stuck.py" "$PORT" 60 "/${LIVE_URL#http://*/}svg" > "$TMPD/stuck.out" & pids+=($!)
	wait "$CAP"; st=$?
	took=$(echo "$(date +%s.%N) - $t0" | bc)
	cut=$(sed -n 's/.* \([0-9]*\) responses cut short.*/\1/p' "$TMPD/stuck.err")
	if [ $st -eq 0 ] && grep -q connected "$TMPD/stuck.out" && [ "$(echo "$took < 10" | bc)" = 1 ] &&
	   valid_svg "$TMPD/stuck.svg" ow_mp_a && [ "${cut:-0}" -ge 1 ]; then
		pass "live_web: a client that never reads does not hold the capture (ended after ${took%???} s, $cut response cut short)"
	else
		fail "live_web: a client that never reads" "status $st after $took s (CMD: 4 s), cut short: ${cut:-?}, client: $(cat "$TMPD/stuck.out"); $(tail -c 300 "$TMPD/stuck.err")"
	fi
else
	fail "live_web: a client that never reads" "no address printed: $(head -c 300 "$TMPD/stuck.err")"
fi

# ---- the address: loopback by default, a warning otherwise ----
"$OFFWAKE" --serve 0 -q -o /dev/null -- true 2> "$TMPD/default.err"
check "live_web: the default address is 127.0.0.1" grep -q 'live view at http://127\.0\.0\.1:[0-9]*/' "$TMPD/default.err"
if grep -q warning "$TMPD/default.err"; then
	fail "live_web: no warning on loopback" "$(head -c 300 "$TMPD/default.err")"
else
	pass "live_web: no warning on loopback"
fi
"$OFFWAKE" --serve 0.0.0.0:0 -q -o /dev/null -- true 2> "$TMPD/any.err"
if [ "$(grep -c 'warning: --serve 0.0.0.0:0: not a loopback address' "$TMPD/any.err")" = 1 ]; then
	pass "live_web: one warning when the address is not loopback"
else
	fail "live_web: one warning when the address is not loopback" "$(head -c 300 "$TMPD/any.err")"
fi
python3 -c 'import socket, time, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' > "$TMPD/busy" & pids+=($!)
for _ in $(seq 50); do [ -s "$TMPD/busy" ] && break; sleep 0.1; done
busy=$(cat "$TMPD/busy")
out=$(timeout 10 "$OFFWAKE" --serve "127.0.0.1:$busy" -o "$TMPD/busy.svg" -- true 2>&1); st=$?
if [ $st -eq 1 ] && grep -q "cannot listen there" <<< "$out" && [ ! -e "$TMPD/busy.svg" ]; then
	pass "live_web: a port in use fails at once"
else
	fail "live_web: a port in use fails at once" "status $st: $out"
fi

# ---- with nobody looking, a refresh renders nothing ----
"$OFFWAKE" --serve 0 --interval 0.2 -q -o /dev/null -- "$TMPD/sleeper" 3 2> "$TMPD/idle.err"
n=$(sed -n 's/.*live view: \([0-9]*\) refreshes.*; \([0-9]*\) skipped with nobody looking.*/\1 \2/p' "$TMPD/idle.err")
if [ "${n%% *}" = 1 ] && [ "${n##* }" -ge 3 ]; then
	pass "live_web: with nobody looking, only the first refresh renders ($n)"
else
	fail "live_web: with nobody looking, only the first refresh renders" "${n:-no summary}: $(tail -c 300 "$TMPD/idle.err")"
fi

# ---- without --serve, nothing listens ----
"$OFFWAKE" -q -o /dev/null -- "$TMPD/sleeper" 3 2> /dev/null & plain=$!
pids+=("$plain")
if attached "$plain"; then
	sleep 0.5
	if ss -ltnpH 2> /dev/null | grep -q "pid=$plain,"; then
		fail "live_web: without --serve nothing listens" "$(ss -ltnpH | grep "pid=$plain,")"
	else
		pass "live_web: without --serve nothing listens"
	fi
else
	fail "live_web: without --serve nothing listens" "the capture did not attach"
fi
wait "$plain"

# ---- the page in real browsers ----
. "$TOP/tests/browser/setup.sh"
pick_browsers "live_web"
# in_browser B NAME DRIVER PREFIX LABEL CHECK-OUTPUT CAPTURE-ARGS... + DRIVER-ARGS...:
# a capture (-o $TMPD/NAME.svg) with the page driven by DRIVER in browser
# B, its lines (PASS: PREFIX: ...) named "live_web (B): LABEL..."; Ctrl-C
# then, and CHECK-OUTPUT FILE must accept the output.
in_browser() {
	local b=$1 n=$2 js=$3 prefix=$4 label=$5 ok=$6 cap=() args=() st child
	shift 6
	while [ $# -gt 0 ] && [ "$1" != + ]; do cap+=("$1"); shift; done
	shift
	args=("$@")
	if ! live_serve "$n" --serve 127.0.0.1:0 --interval 0.5 -o "$TMPD/$n.svg" "${cap[@]}"; then
		fail "live_web ($b): ${label}start" "no address printed: $(head -c 300 "$TMPD/$n.err")"
		return
	fi
	child=$(pgrep -P "$CAP" | head -1)
	[ -n "$child" ] && pids+=("$child")
	mkdir -p "$TOP/build/browser/$b"
	CHROMIUM=$CHROMIUM FIREFOX=$FIREFOX timeout 300 node "$BROWSER_DIR/$js" "$LIVE_URL" \
		"$TOP/build/browser/$b" "$b" "${args[@]}" |
		sed -u "s/^\(PASS\|FAIL\|SKIP\): $prefix: /\1: live_web ($b): $label/"
	st=${PIPESTATUS[0]}
	[ "$st" -eq 0 ] || fail "live_web ($b): $js" "exited with status $st"
	kill -INT "$CAP"; wait "$CAP"; st=$?
	[ -n "$child" ] && kill "$child" 2> /dev/null
	if [ $st -eq 0 ] && $ok "$TMPD/$n.svg"; then
		pass "live_web ($b): ${label}Ctrl-C writes the output"
	else
		fail "live_web ($b): ${label}Ctrl-C writes the output" "status $st: $(tail -c 300 "$TMPD/$n.err")"
	fi
}
sleep_svg() { valid_svg "$1" ow_sleep; }
stall_svg() { map_svg "$1" worker_wait; }
for b in $browsers; do
	in_browser "$b" "$b" live_test.js live "" sleep_svg -- "$TMPD/sleeper" 600 + sleep_loop nanosleep
	in_browser "$b" "map-$b" live_map_test.js live_map "the heat map: " stall_svg \
		--timeline -- "$TMPD/stall" 600 80 "$TMPD/map-$b.tids" + 80
done
exit 0
