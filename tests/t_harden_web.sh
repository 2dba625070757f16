#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_harden_web.sh - the browser live view (--serve) against hostile local
# clients (issue 44, items 2 and 8), as root, a capture of the sleeper
# workload on 127.0.0.1:0:
#   - Host: only a loopback literal (127.x.y.z, [::1]) or localhost, each
#     with an optional :PORT, is answered; 127.attacker.test and its kind
#     (names an attacker can point at 127.0.0.1: DNS rebinding) are 403;
#   - the token: the address printed is http://127.0.0.1:PORT/TOKEN/; the
#     page, status and every document without it (or with a wrong, short
#     or differently cased one) are 403 and carry no stack; user nobody,
#     with curl and with bash's /dev/tcp, reads no stack either;
#   - 40 slowloris clients (a request's headers a byte a second, again
#     when ended) do not keep a normal client from the page (answered in
#     5 s), and each is ended within the deadline (10 s) and a few seconds;
#     150 of them (more than the 128 connections) neither;
#   - 2000 malformed requests add a bounded number of lines to stderr (5 a
#     second and one "N more ... suppressed" line), every message printed
#     or counted as suppressed; the summary counts the refused requests and
#     the ended connections.
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads

can_capture harden_web || exit 0
if ! cc -O1 -g -fno-omit-frame-pointer -o "$TMPD/sleeper" "$WL/sleeper.c"; then
	fail harden_web_build "cannot compile sleeper.c"
	exit 0
fi
pids=()
trap 'kill "${pids[@]}" 2> /dev/null; rm -rf "$TMPD"' EXIT

if ! live_serve main --serve 127.0.0.1:0 --interval 0.5 -o "$TMPD/out.svg" -- "$TMPD/sleeper" 300 ||
   ! attached "$CAP"; then
	fail harden_web_start "no address printed: $(head -c 400 "$TMPD/main.err")"
	exit 0
fi
child=$(pgrep -P "$CAP" | head -1)
[ -n "$child" ] && pids+=("$child")
ROOT=http://127.0.0.1:$PORT
TOKEN=${LIVE_URL#"$ROOT"/}
TOKEN=${TOKEN%/}
# code URL [curl args]: the status of a GET of URL, the body in $TMPD/body
code() {
	local u=$1; shift
	curl -s -o "$TMPD/body" -w '%{http_code}' --max-time 10 "$@" "$u"
}
if [[ $TOKEN =~ ^[0-9a-f]{32}$ ]]; then
	pass "harden_web: the address printed has a token of 128 bits ($LIVE_URL)"
else
	fail "harden_web: the address printed has a token of 128 bits" "$LIVE_URL"
fi
# the folded stacks, once rendered (the first ask starts it)
for _ in $(seq 50); do
	[ "$(code "${LIVE_URL}folded")" = 200 ] && grep -q '^ow_sleep;' "$TMPD/body" && break
	sleep 0.2
done
check "harden_web: with the token, /folded has the stacks" grep -q '^ow_sleep;' "$TMPD/body"

# ---- Host: a loopback literal or localhost, nothing else ----
for h in 127.attacker.test "127.attacker.test:$PORT" 127.0.0.1.attacker.test \
	 localhost.attacker.test '[::1].attacker.test' 127.1 0x7f.0.0.1 127.0.0.01 \
	 "127.0.0.1:${PORT}x" 127.0.0.1:: '[::ffff:127.0.0.1]' '[::1' attacker.test; do
	c=$(code "${LIVE_URL}folded" -H "Host: $h")
	if [ "$c" = 403 ] && ! grep -q ow_sleep "$TMPD/body"; then
		pass "harden_web: Host '$h' is refused"
	else
		fail "harden_web: Host '$h' is refused" "status $c"
	fi
done
for h in "127.0.0.1:$PORT" 127.0.0.1 "127.9.8.7:$PORT" localhost "localhost:$PORT" \
	 "LocalHost:$PORT" "[::1]:$PORT" '[::1]'; do
	c=$(code "${LIVE_URL}status" -H "Host: $h")
	check "harden_web: Host '$h' is answered (status $c)" [ "$c" = 200 ]
done

# ---- the token ----
upper=$(tr a-f A-F <<< "$TOKEN")
wrong=${TOKEN%?}$(case ${TOKEN: -1} in 0) echo 1 ;; *) echo 0 ;; esac)
for u in "$ROOT/" "$ROOT/index.html" "$ROOT/status" "$ROOT/svg" "$ROOT/folded" "$ROOT/pprof" \
	 "$ROOT/svg?download=1" "$ROOT/folded?token=$TOKEN" "$ROOT/$wrong/folded" \
	 "$ROOT/${TOKEN%?}/folded" "$ROOT/$upper/folded" "$ROOT/x/../$TOKEN/folded" \
	 "$ROOT/${TOKEN}x/folded"; do
	c=$(code "$u" --path-as-is)
	if [ "$c" = 403 ] && ! grep -q ow_sleep "$TMPD/body"; then
		pass "harden_web: no token, no answer: ${u#"$ROOT"}"
	else
		fail "harden_web: no token, no answer: ${u#"$ROOT"}" "status $c: $(head -c 200 "$TMPD/body")"
	fi
done
c=$(code "$ROOT/$TOKEN")
check "harden_web: /TOKEN goes to /TOKEN/ (status $c)" [ "$c" = 302 ]

# ---- another local user reads no stack ----
for p in '' folded svg status; do
	out=$(runuser -u nobody -- curl -s -w ' %{http_code}' --max-time 10 "$ROOT/$p" 2>&1)
	if [ "${out##* }" = 403 ] && ! grep -q ow_sleep <<< "$out"; then
		pass "harden_web: user nobody (curl) is refused /$p"
	else
		fail "harden_web: user nobody (curl) is refused /$p" "$(head -c 200 <<< "$out")"
	fi
done
out=$(runuser -u nobody -- timeout 10 bash -c 'exec 3<> /dev/tcp/127.0.0.1/$1 &&
	printf "GET /folded HTTP/1.0\r\n\r\n" >&3 && cat <&3' - "$PORT" 2>&1)
if grep -q '^HTTP/1.[01] 403' <<< "$out" && ! grep -q ow_sleep <<< "$out"; then
	pass "harden_web: user nobody (bash /dev/tcp, no Host) is refused /folded"
else
	fail "harden_web: user nobody (bash /dev/tcp) is refused /folded" "$(head -c 200 <<< "$out")"
fi
if runuser -u nobody -- cat "/proc/$CAP/cmdline" "/proc/$CAP/environ" 2> /dev/null | grep -qaF "$TOKEN"; then
	fail "harden_web: user nobody cannot read the token from /proc" "it is there"
else
	pass "harden_web: user nobody cannot read the token from /proc"
fi

# ---- slowloris ----
# slow.py PORT N SECONDS: N connections, each sending a request's headers
# a byte a second (never whole), opened again when the server ends one;
# prints the connections opened and, for those ended, how long each lasted.
cat > "$TMPD/slow.py" <<'EOF'
import select, socket, sys, time
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
def start():
    s = socket.socket()
    s.setblocking(True)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    except OSError:
        pass
    return [s, time.monotonic()]
conns = [start() for _ in range(n)]
opened, lasted = n, []
print("connected", flush=True)
end = time.monotonic() + secs
while time.monotonic() < end:
    for c in conns:
        try:
            r, _, _ = select.select([c[0]], [], [], 0)
            if r and not c[0].recv(4096):
                raise OSError("ended")
            c[0].send(b"a")
        except OSError:
            lasted.append(time.monotonic() - c[1])
            c[0].close()
            c[:] = start()
            opened += 1
    time.sleep(1)
print("opened", opened, "ended", len(lasted), "longest", round(max(lasted or [0]), 1),
      "first", " ".join(str(round(x, 1)) for x in sorted(lasted)[:3]), flush=True)
EOF
# page_in SECONDS: the page, answered in time ($took: how long)
page_in() {
	local t0=$SECONDS c
	c=$(curl -s -o "$TMPD/page" -w '%{http_code}' --max-time "$1" "$LIVE_URL")
	took=$((SECONDS - t0))
	[ "$c" = 200 ] && grep -q offwake_live "$TMPD/page"
}
# slowloris N SECS SETTLE GAP [WHAT]: N clients of slow.py for SECS s; SETTLE
# s after they connect, the page must be answered in 5 s three times, GAP
# s apart; their summary in $TMPD/slowN.out
slowloris() {
	local n=$1 out=$TMPD/slow$1.out ok=0 slow
	python3 "$TMPD/slow.py" "$PORT" "$n" "$2" > "$out" & slow=$!
	pids+=("$slow")
	for _ in $(seq 100); do grep -q connected "$out" && break; sleep 0.1; done
	sleep "$3"
	for _ in 1 2 3; do
		page_in 5 && ok=$((ok + 1))
		sleep "$4"
	done
	check "harden_web: with $n slowloris clients${5:+ ($5)}, the page is answered ($ok of 3 in 5 s)" [ $ok = 3 ]
	wait "$slow"
}
slowloris 40 16 2 3
read -r _ opened _ ended _ longest _ < <(grep '^opened' "$TMPD/slow40.out")
# each of the 40 ended at the 10 s deadline (and the reaper's 0.5 s, the
# client's 1 s ticks): none lasts much longer
if [ "${ended:-0}" -ge 40 ] && [ "$(echo "${longest:-99} < 14" | bc)" = 1 ]; then
	pass "harden_web: slowloris connections are ended at the deadline ($ended ended, longest ${longest} s)"
else
	fail "harden_web: slowloris connections are ended at the deadline" "$(cat "$TMPD/slow40.out")"
fi

slowloris 150 8 1 1 "over the 128 connections"

# ---- a flood of malformed requests: bounded lines on stderr ----
# flood.py PORT N: N requests libmicrohttpd refuses (400 or 431), each on
# its own connection; prints how long it took
cat > "$TMPD/flood.py" <<'EOF'
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
bad = [b"GARBAGE\x01 / HTTP/9\r\n\r\n",
       b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n"]
t0 = time.monotonic()
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    try:
        s.sendall(bad[i % 2])
        s.shutdown(socket.SHUT_WR)
        while s.recv(65536):
            pass
    except OSError:
        pass
    s.close()
print(round(time.monotonic() - t0 + 0.5))
EOF
sleep 1.5	# a window of its own
before=$(wc -l < "$TMPD/main.err")
secs=$(python3 "$TMPD/flood.py" "$PORT" 2000)
sleep 1.5
after=$(wc -l < "$TMPD/main.err")
lines=$((after - before))
# 5 lines a second and one "suppressed" line, over its seconds and the
# windows either side
limit=$(( (${secs:-60} + 3) * 6 ))
if [ "$lines" -le "$limit" ] && tail -n "$lines" "$TMPD/main.err" | grep -q 'more libmicrohttpd messages suppressed'; then
	pass "harden_web: 2000 malformed requests in ${secs} s add $lines lines to stderr (at most $limit)"
else
	fail "harden_web: 2000 malformed requests: bounded stderr" "$lines lines in ${secs} s (at most $limit): $(tail -n 3 "$TMPD/main.err" | head -c 300)"
fi
if grep -qP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$TMPD/main.err"; then
	fail "harden_web: stderr has only printable text" "$(grep -naP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$TMPD/main.err" | head -c 200)"
else
	pass "harden_web: stderr has only printable text"
fi

# ---- the end: the output, and the summary counts what was refused ----
kill -INT "$CAP"
wait "$CAP"; st=$?
if [ $st -eq 0 ] && grep -q ow_sleep "$TMPD/out.svg" && tail -c 10 "$TMPD/out.svg" | grep -q '</svg>'; then
	pass "harden_web: Ctrl-C writes the output"
else
	fail "harden_web: Ctrl-C writes the output" "status $st: $(tail -c 300 "$TMPD/main.err")"
fi
sum=$(grep 'live view: .* refreshes' "$TMPD/main.err")
refused=$(sed -n 's/.* \([0-9]*\) requests refused.*/\1/p' <<< "$sum")
ended=$(sed -n 's/.* \([0-9]*\) connections ended.*/\1/p' <<< "$sum")
suppressed=$(sed -n 's/.* \([0-9]*\) libmicrohttpd messages suppressed.*/\1/p' <<< "$sum")
# the requests above without the token or with a bad Host: 13 + 13 + 5
check "harden_web: the summary counts the refused requests (${refused:-none})" [ "${refused:-0}" -ge 31 ]
check "harden_web: the summary counts the ended connections (${ended:-none})" [ "${ended:-0}" -ge 40 ]
printed=$(grep -c '^offwake-svg: --serve: Error processing request' "$TMPD/main.err")
if [ $((printed + ${suppressed:-0})) -ge 2000 ]; then
	pass "harden_web: every message of the flood printed or counted ($printed printed, $suppressed suppressed)"
else
	fail "harden_web: every message of the flood printed or counted" "$printed printed, ${suppressed:-no} suppressed"
fi
exit 0
