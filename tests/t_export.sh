#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_export.sh - pprof and speedscope export ("offwake-svg convert", the
# capture's --format), checked by the real consumers: `go tool pprof -raw`
# (Debian golang-go, installed here when missing) must read our pprof of a
# real off-wake profile (examples/offwake-tar-gzip.folded) with the same
# stacks and totals; speedscope's own JSON schema (from the speedscope npm
# package, installed under build/npm) must accept our JSON, whose weights
# and stacks must match.  Also: an SVG converts like its folded source, -o
# picks the format by extension, bad formats and options are one-line
# errors, binary pprof is refused on a terminal, and (as root, with BTF) a
# real capture written with --format=pprof -o x.pb.gz reads back in pprof
# with its pipe stacks and blocked time, its frames at addresses in the
# mappings of their files (build ids as readelf reads them), which pprof
# can symbolise again to the workload's source lines, and the threads'
# comm, pid and tid as labels as far as --group keeps them.
. "$(dirname "$0")/lib.sh"
IN=$TOP/examples/offwake-tar-gzip.folded
STK="python3 $TOP/tests/tools/export_stacks.py"

# ---- the consumers ----------------------------------------------------
GO=$(command -v go || true)
if [ -z "$GO" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go < /dev/null > "$TMPD/apt.log" 2>&1
	GO=$(command -v go || true)
	[ -z "$GO" ] && GO_WHY="golang-go not installed: $(tail -c 200 "$TMPD/apt.log")"
fi
SCHEMA=$TOP/build/npm/node_modules/speedscope/dist/release/file-format-schema.json
if [ ! -f "$SCHEMA" ]; then
	npm install --silent --no-audit --no-fund --prefix "$TOP/build/npm" speedscope \
		< /dev/null > "$TMPD/npm.log" 2>&1
	[ -f "$SCHEMA" ] || SS_WHY="npm install speedscope failed: $(tail -c 200 "$TMPD/npm.log")"
fi
PY=python3
if ! python3 -c 'import jsonschema' 2> /dev/null; then
	PY=/usr/bin/python3
	/usr/bin/python3 -c 'import jsonschema' 2> /dev/null ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-jsonschema < /dev/null > /dev/null 2>&1
	/usr/bin/python3 -c 'import jsonschema' 2> /dev/null ||
		SS_WHY=${SS_WHY:-"no python3 jsonschema (python3-jsonschema not installed)"}
fi

# pprof_stacks FILE.pb.gz OUT: the stacks go tool pprof reads, as summed
# folded lines (names as written: no demangling or simplification).
pprof_stacks() {
	"$GO" tool pprof -raw -symbolize=none "$1" > "$TMPD/raw" 2> "$TMPD/raw.err" &&
		$STK pprof-raw "$TMPD/raw" > "$2"
}
$STK folded "$IN" > "$TMPD/want"

# ---- pprof ------------------------------------------------------------
"$OFFWAKE" convert --format=pprof "$IN" > "$TMPD/p.pb.gz" 2> "$TMPD/p.err"; st=$?
if [ $st -ne 0 ]; then
	fail export_pprof_convert "status $st: $(head -c 300 "$TMPD/p.err")"
elif [ -n "$GO_WHY" ]; then
	skip export_pprof_go "$GO_WHY"
else
	pass export_pprof_convert
	if pprof_stacks "$TMPD/p.pb.gz" "$TMPD/got" && cmp -s "$TMPD/want" "$TMPD/got"; then
		pass export_pprof_same_stacks
	else
		fail export_pprof_same_stacks "$(head -c 300 "$TMPD/raw.err") $(diff "$TMPD/want" "$TMPD/got" | head -c 400)"
	fi
	# one location and function per distinct frame name, "--" kept as a
	# frame, empty names (the user/kernel delimiter without -d, a
	# preempted block's missing waker) left out
	want=$(sed 's/ [^ ]*$//' "$IN" | tr ';' '\n' | grep -v '^$' | sort -u | wc -l)
	got=$(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 } l && /^ *[0-9]+: /' "$TMPD/raw" | wc -l)
	names=$(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 } l && /^ *[0-9]+: /' "$TMPD/raw" |
		sed -E 's/^ *[0-9]+: 0x[0-9a-f]+ M=[0-9]+ (.*) :[0-9]+ s=[0-9]+$/\1/' | sort -u | wc -l)
	if [ "$got" -eq "$want" ] && [ "$names" -eq "$want" ] &&
	   grep -qE '^ *[0-9]+: 0x0 M=[0-9]+ -- :' "$TMPD/raw"; then
		pass export_pprof_dedup
	else
		fail export_pprof_dedup "$got locations, $names names, $want distinct frames in the input"
	fi
	if grep -q '^PeriodType: off-wake time microseconds$' "$TMPD/raw"; then
		pass export_pprof_sample_type
	else
		fail export_pprof_sample_type "$(grep -m1 PeriodType "$TMPD/raw")"
	fi
	"$OFFWAKE" convert --format=pprof --countname=ns "$IN" > "$TMPD/ns.pb.gz" &&
		"$GO" tool pprof -raw "$TMPD/ns.pb.gz" 2> /dev/null | grep -q '^PeriodType: off-wake time nanoseconds$'
	check export_pprof_countname test $? -eq 0
	# totals as pprof computes them
	total=$(awk '{ s += $NF } END { print s }' "$IN")
	top=$("$GO" tool pprof -top -unit=microseconds "$TMPD/p.pb.gz" 2> /dev/null | grep -m1 ' total$')
	if grep -q " of ${total}us total$" <<< "$top"; then
		pass export_pprof_total
	else
		fail export_pprof_total "want ${total}us: $top"
	fi
	# empty frames (a preempted block's missing waker above its "--", the
	# user/kernel delimiter without -d) are left out, as the graph shows
	# them, not named "<unknown>": the preempted time is flat on "--"
	printf '%s\n' 'sh;main;;schedule;--;; 100' 'sh;main;;schedule;--;wake;;write;gz 300' \
		> "$TMPD/empty.folded"
	"$OFFWAKE" convert -o "$TMPD/empty.pb.gz" "$TMPD/empty.folded" &&
		"$GO" tool pprof -top "$TMPD/empty.pb.gz" > "$TMPD/empty.top" 2> /dev/null
	if [ -s "$TMPD/empty.top" ] && ! grep -qiE 'unknown|  $' "$TMPD/empty.top" &&
	   grep -qE '^ +100us +25\.00% .* --$' "$TMPD/empty.top"; then
		pass export_pprof_no_empty_frames
	else
		fail export_pprof_no_empty_frames "$(tr '\n' '|' < "$TMPD/empty.top" | head -c 400)"
	fi
fi
# pprof values are integers: a fraction is refused, naming the count
printf 'a;b 1.5\n' > "$TMPD/frac.folded"
out=$("$OFFWAKE" convert --format=pprof "$TMPD/frac.folded" 2>&1 > /dev/null); st=$?
if [ $st -eq 1 ] && [ "$(wc -l <<< "$out")" -eq 1 ] && grep -q '^offwake-svg: convert: .*count 1.5: ' <<< "$out"; then
	pass export_pprof_fraction
else
	fail export_pprof_fraction "status $st: $out"
fi

# ---- speedscope -------------------------------------------------------
"$OFFWAKE" convert --format=speedscope "$IN" > "$TMPD/s.json" 2> "$TMPD/s.err"; st=$?
if [ $st -ne 0 ]; then
	fail export_speedscope_convert "status $st: $(head -c 300 "$TMPD/s.err")"
elif [ -n "$SS_WHY" ]; then
	skip export_speedscope_schema "$SS_WHY"
else
	if $PY "$TOP/tests/tools/export_stacks.py" schema "$SCHEMA" "$TMPD/s.json" 2> "$TMPD/v.err"; then
		pass export_speedscope_schema
	else
		fail export_speedscope_schema "$(head -c 300 "$TMPD/v.err")"
	fi
	# the schema rejects what is not speedscope's (the check can fail)
	sed 's/"type":"sampled"/"type":"sample"/' "$TMPD/s.json" > "$TMPD/bad.json"
	if ! $PY "$TOP/tests/tools/export_stacks.py" schema "$SCHEMA" "$TMPD/bad.json" 2> /dev/null; then
		pass export_speedscope_schema_rejects
	else
		fail export_speedscope_schema_rejects "a profile of type \"sample\" was accepted"
	fi
fi
if [ $st -eq 0 ]; then
	$STK speedscope "$TMPD/s.json" > "$TMPD/sgot"
	check export_speedscope_same_stacks cmp -s "$TMPD/want" "$TMPD/sgot"
	if python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); p = d["profiles"][0]
n = len(d["shared"]["frames"]); names = {f["name"] for f in d["shared"]["frames"]}
assert len(names) == n, "frames not deduplicated"
assert p["unit"] == "microseconds" and p["endValue"] == sum(p["weights"]), p["unit"]' "$TMPD/s.json"; then
		pass export_speedscope_frames_total
	else
		fail export_speedscope_frames_total "frames repeated, unit or endValue wrong"
	fi
	# a fractional count is a fractional weight
	"$OFFWAKE" convert --format=speedscope "$TMPD/frac.folded" > "$TMPD/frac.json" &&
		[ "$($STK speedscope "$TMPD/frac.json")" = "a;b 1.5" ]
	check export_speedscope_fraction test $? -eq 0
	# no frame without a name (speedscope would draw it blank)
	printf '%s\n' 'sh;main;;schedule;--;; 100' > "$TMPD/empty.folded"
	"$OFFWAKE" convert --format=speedscope "$TMPD/empty.folded" > "$TMPD/empty.json" &&
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert [f["name"] for f in d["shared"]["frames"]] == ["sh", "main", "schedule", "--"]
assert d["profiles"][0]["samples"] == [[0, 1, 2, 3]]' "$TMPD/empty.json"
	check export_speedscope_no_empty_frames test $? -eq 0
fi

# ---- names that need escaping, and the default profile name -----------
printf '%s\n' $'m"a\\in;x\ty;caf\xc3\xa9 {}<>/ 3' 'main;plain 2' > "$TMPD/esc.folded"
$STK folded "$TMPD/esc.folded" > "$TMPD/esc.want"
"$OFFWAKE" convert --format=speedscope "$TMPD/esc.folded" > "$TMPD/esc.json" &&
	$STK speedscope "$TMPD/esc.json" > "$TMPD/esc.got" && cmp -s "$TMPD/esc.want" "$TMPD/esc.got" &&
	grep -q "\"name\":\"$TMPD/esc.folded\"" "$TMPD/esc.json"
check export_speedscope_escapes test $? -eq 0
if [ -z "$GO_WHY" ]; then
	"$OFFWAKE" convert -o "$TMPD/esc.pb.gz" "$TMPD/esc.folded" && pprof_stacks "$TMPD/esc.pb.gz" "$TMPD/esc.pgot" &&
		cmp -s "$TMPD/esc.want" "$TMPD/esc.pgot"
	check export_pprof_escapes test $? -eq 0
fi

# ---- an SVG converts as its folded source ----------------------------
# (as flamegraph.pl, the graph has no empty leaf frames: Perl's split drops
# trailing empty fields, "a;--;; 5" is drawn as "a;--")
"$OFFWAKE" render --minwidth=0 --width=100000 "$IN" > "$TMPD/in.svg"
sed -E 's/;+( [^ ]+)$/\1/' "$IN" > "$TMPD/in_trimmed.folded"
$STK folded "$TMPD/in_trimmed.folded" > "$TMPD/want_svg"
for f in folded speedscope pprof; do
	"$OFFWAKE" convert --format=$f "$IN" > "$TMPD/from_folded.$f" 2> /dev/null
	"$OFFWAKE" convert --format=$f "$TMPD/in.svg" > "$TMPD/from_svg.$f" 2> "$TMPD/svg.err"
done
if [ -s "$TMPD/from_svg.speedscope" ] &&
   [ "$($STK speedscope "$TMPD/from_svg.speedscope")" = "$(cat "$TMPD/want_svg")" ] &&
   [ "$($STK folded "$TMPD/from_svg.folded")" = "$(cat "$TMPD/want_svg")" ]; then
	pass export_svg_input
else
	fail export_svg_input "$(head -c 300 "$TMPD/svg.err")"
fi
if [ -z "$GO_WHY" ]; then
	if pprof_stacks "$TMPD/from_svg.pprof" "$TMPD/svgp" && cmp -s "$TMPD/want_svg" "$TMPD/svgp"; then
		pass export_svg_input_pprof
	else
		fail export_svg_input_pprof "$(diff "$TMPD/want_svg" "$TMPD/svgp" | head -c 300)"
	fi
fi

# ---- -o FILE: the format by extension, unless --format says -----------
ext_ok=1
"$OFFWAKE" convert -o "$TMPD/x.pb.gz" "$IN" && gzip -t "$TMPD/x.pb.gz" || ext_ok=0
"$OFFWAKE" convert -o "$TMPD/x.speedscope.json" "$IN" &&
	grep -q '^{"$schema":"https://www.speedscope.app/file-format-schema.json"' "$TMPD/x.speedscope.json" || ext_ok=0
"$OFFWAKE" convert -o "$TMPD/x.folded" "$IN" &&
	[ "$($STK folded "$TMPD/x.folded")" = "$(cat "$TMPD/want")" ] || ext_ok=0
"$OFFWAKE" convert --format=folded -o "$TMPD/y.pb.gz" "$IN" &&
	! gzip -t "$TMPD/y.pb.gz" 2> /dev/null && grep -q ';--;' "$TMPD/y.pb.gz" || ext_ok=0
check export_output_extension test $ext_ok -eq 1

# ---- errors: one line naming what, exit 2 (usage) or 1 ----------------
# err NAME STATUS PATTERN CMD...: CMD exits STATUS, its first stderr line
# matches PATTERN, nothing is written to stdout.
err() {
	local n=$1 want=$2 pat=$3 out st; shift 3
	out=$("$@" 2> "$TMPD/e" < /dev/null); st=$?
	if [ "$st" -eq "$want" ] && [ -z "$out" ] && head -1 "$TMPD/e" | grep -qE "$pat"; then
		pass "$n"
	else
		fail "$n" "status $st: $(head -c 300 "$TMPD/e")"
	fi
}
err export_bad_format 2 "^offwake-svg: convert: --format: unknown format" "$OFFWAKE" convert --format=xml "$IN"
err export_no_format 2 "^offwake-svg: convert: --format: missing" "$OFFWAKE" convert "$IN"
err export_unknown_extension 2 "^offwake-svg: convert: $TMPD/x.txt: no format" "$OFFWAKE" convert -o "$TMPD/x.txt" "$IN"
# a Perfetto trace is made of a capture's events: stack counts have none
# (one line, status 1, no file left behind; by name, a usage error)
for x in pftrace perfetto-trace; do
	err export_perfetto_no_events_$x 1 "^offwake-svg: convert: writing .*: no long blocks in time \(events\)" \
		"$OFFWAKE" convert -o "$TMPD/x.$x" "$IN"
	check export_perfetto_no_file_$x test ! -e "$TMPD/x.$x" -a "$(wc -l < "$TMPD/e")" -eq 1
done
err export_perfetto_format 2 "^offwake-svg: convert: perfetto: needs a capture's threads" \
	"$OFFWAKE" convert --format=perfetto "$IN"
err export_missing_file 1 "^offwake-svg: convert: $TMPD/nope: No such file" "$OFFWAKE" convert -f "$TMPD/nope"
err export_unknown_option 2 "^offwake-svg: convert: --bogus: unknown option" "$OFFWAKE" convert --bogus "$IN"
err export_empty_input 2 "^offwake-svg: convert: no stack counts" "$OFFWAKE" convert -f /dev/null
err export_capture_bad_format 2 "^offwake-svg: error: argument --format: invalid choice: 'xml'" "$OFFWAKE" --format=xml 1
err export_capture_format_with_f 2 "not allowed with argument -f/--folded" "$OFFWAKE" -f --format=pprof 1
[ -e "$TMPD/x.txt" ] && fail export_unknown_extension "$TMPD/x.txt was made"

# ---- binary pprof on a terminal is refused (before any capture) -------
if command -v script > /dev/null; then
	script -qec "'$OFFWAKE' convert --format=pprof '$IN'" /dev/null > "$TMPD/tty" 2>&1; st=$?
	if [ $st -eq 2 ] && grep -q 'offwake-svg: convert: standard output is a terminal: not writing binary pprof' "$TMPD/tty" &&
	   [ "$(wc -c < "$TMPD/tty")" -lt 300 ]; then
		pass export_tty_refused
	else
		fail export_tty_refused "status $st: $(head -c 300 "$TMPD/tty")"
	fi
	script -qec "'$OFFWAKE' convert --format=speedscope '$IN'" /dev/null > "$TMPD/tty2" 2>&1
	check export_tty_text_allowed grep -q '"frames"' "$TMPD/tty2"
	script -qec "'$OFFWAKE' --format=pprof 1" /dev/null > "$TMPD/tty3" 2>&1; st=$?
	if [ $st -eq 2 ] && grep -q 'standard output is a terminal: not writing binary pprof output there' "$TMPD/tty3"; then
		pass export_capture_tty_refused
	else
		fail export_capture_tty_refused "status $st: $(head -c 300 "$TMPD/tty3")"
	fi
else
	skip export_tty_refused "no script(1) (bsdutils) to make a terminal"
fi

# ---- a real capture, end to end ---------------------------------------
can_capture export_capture || exit 0
if ! cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPD/pingpong" "$TOP/tests/workloads/pingpong.c"; then
	fail export_capture "cannot compile pingpong.c"
	exit 0
fi
"$TMPD/pingpong" 60 "$TMPD/tids" & PP=$!
trap 'kill $PP 2> /dev/null; rm -rf "$TMPD"' EXIT
for _ in $(seq 50); do [ -s "$TMPD/tids" ] && break; sleep 0.1; done
"$OFFWAKE" -q -p "$PP" -o "$TMPD/cap.pb.gz" 2 2> "$TMPD/cap.err"; st=$?
"$OFFWAKE" -q -p "$PP" -o "$TMPD/cap.speedscope.json" 1 2> "$TMPD/cap2.err"; st2=$?
"$OFFWAKE" -q -p "$PP" --group=thread -o "$TMPD/thr.pb.gz" 1 2> "$TMPD/cap3.err"; st3=$?
read -r ping_tid pong_tid < "$TMPD/tids"
"$OFFWAKE" -q -t "$pong_tid" -o "$TMPD/pong.pb.gz" 1 2> /dev/null
kill $PP 2> /dev/null
if [ $st -ne 0 ] || ! gzip -t "$TMPD/cap.pb.gz" 2> /dev/null; then
	fail export_capture_pprof "status $st: $(head -c 300 "$TMPD/cap.err")"
elif [ -n "$GO_WHY" ]; then
	skip export_capture_pprof "$GO_WHY"
else
	pprof_stacks "$TMPD/cap.pb.gz" "$TMPD/cap"
	# the blocked thread, its pipe read, the divider, the waker's write and name
	us=$(grep -E '^ow_pong;.*pong_wait;.*anon_pipe_read;.*;--;.*anon_pipe_write;.*ping_send;.*;ow_ping [0-9]+$' "$TMPD/cap" |
		awk '{ s += $NF } END { print s + 0 }')
	if [ "$us" -ge 1000000 ] && [ "$us" -le 2300000 ]; then
		pass export_capture_pprof
	else
		fail export_capture_pprof "ow_pong blocked ${us} us in a 2 s capture: $(head -c 300 "$TMPD/cap")"
	fi
	if grep -q '^Comment: traced: PID [0-9]*, user + kernel stacks$' "$TMPD/raw" &&
	   grep -q '^Comment: duration: 2\.[0-9] s$' "$TMPD/raw" && grep -q '^Comment: kernel: Linux ' "$TMPD/raw"; then
		pass export_capture_comments
	else
		fail export_capture_comments "$(grep Comment "$TMPD/raw" | head -c 300)"
	fi
	cp "$TMPD/raw" "$TMPD/cap.raw"
	# where the frames are: the workload's functions at addresses inside
	# the mapping of its executable, with the build id readelf reads from
	# it; libc's and the kernel's frames in theirs; no location outside
	# its mapping; the thread names and markers in none (names only)
	$STK pprof-where "$TMPD/cap.raw" | sort -u > "$TMPD/where"
	bid=$(readelf -n "$TMPD/pingpong" 2> /dev/null | awk '/Build ID:/ { print $3 }')
	tab=$'\t'
	if [ -n "$bid" ] &&
	   grep -qx "pong_wait$tab$TMPD/pingpong$tab$bid${tab}1" "$TMPD/where" &&
	   grep -qx "ping_send$tab$TMPD/pingpong$tab$bid${tab}1" "$TMPD/where" &&
	   grep -qE "^(__|__libc_)?read$tab/.*/libc\.so\.6$tab[0-9a-f]{40}${tab}1$" "$TMPD/where" &&
	   grep -qE "^anon_pipe_read$tab\[kernel\.kallsyms\]$tab[0-9a-f]*${tab}1$" "$TMPD/where" &&
	   ! grep -q "${tab}0$" "$TMPD/where" && ! grep -qE "^(ow_pong|ow_ping|--)$tab" "$TMPD/where"; then
		pass export_capture_mappings
	else
		fail export_capture_mappings "build id '$bid': $(grep -E 'pong_wait|ping_send|read|0$' "$TMPD/where" | head -c 400)"
	fi
	# the executable is listed first: pprof's main binary, named atop its
	# reports (ow_pong's stacks start in libc's __clone3, not in main)
	"$GO" tool pprof -top "$TMPD/pong.pb.gz" 2> /dev/null | head -3 > "$TMPD/top"
	check export_capture_main_binary grep -qx 'File: pingpong' "$TMPD/top"
	# pprof can symbolise them again from the binary built with -g: files
	# and lines of the read and write calls (-symbolize=local:force); by
	# default it keeps our names (the mappings say they have functions)
	src=$TOP/tests/workloads/pingpong.c
	rl=$(grep -n 'read(fds' "$src" | cut -d: -f1)
	wl=$(grep -n 'write(fds' "$src" | cut -d: -f1)
	"$GO" tool pprof -symbolize=local:force -traces -lines "$TMPD/cap.pb.gz" > "$TMPD/lines" 2> "$TMPD/lines.err"
	if grep -qE "^ +pong_wait $src:$rl$" "$TMPD/lines" && grep -qE "^ +ping_send $src:$wl$" "$TMPD/lines"; then
		pass export_capture_lines
	else
		fail export_capture_lines "want pong_wait $src:$rl, ping_send $src:$wl: $(grep -E 'pong_wait|ping_send' "$TMPD/lines" | sort -u | head -c 300) $(head -c 200 "$TMPD/lines.err")"
	fi
	"$GO" tool pprof -traces -lines "$TMPD/cap.pb.gz" > "$TMPD/ours" 2> /dev/null
	if grep -qE '^ +pong_wait$' "$TMPD/ours" && ! grep -q 'pingpong\.c' "$TMPD/ours"; then
		pass export_capture_names_kept
	else
		fail export_capture_names_kept "$(grep pong_wait "$TMPD/ours" | head -c 300)"
	fi
	# labels: the blocked thread's and the waker's comm; pids and tids
	# only where --group keeps them (else the sums would be split)
	tags() { "$GO" tool pprof -tags "$1" 2> /dev/null | awk '/: Total / { k = $1; sub(":$", "", k); next } NF { print k, $NF }' | sort -u; }
	tags "$TMPD/cap.pb.gz" > "$TMPD/tags"
	if grep -qx 'comm ow_pong' "$TMPD/tags" && grep -qx 'comm ow_ping' "$TMPD/tags" &&
	   grep -qx 'waker_comm ow_ping' "$TMPD/tags" && ! grep -qE '^(waker_)?(pid|tid) ' "$TMPD/tags"; then
		pass export_capture_labels
	else
		fail export_capture_labels "$(head -c 300 "$TMPD/tags")"
	fi
	tags "$TMPD/thr.pb.gz" > "$TMPD/ttags"
	if [ $st3 -eq 0 ] && grep -qx "pid $PP" "$TMPD/ttags" && ! grep -qE '^pid ' <(grep -vx "pid $PP" "$TMPD/ttags") &&
	   grep -qx "tid $pong_tid" "$TMPD/ttags" && grep -qx "tid $ping_tid" "$TMPD/ttags" &&
	   grep -qx "waker_pid $PP" "$TMPD/ttags" && grep -qx "waker_tid $ping_tid" "$TMPD/ttags" &&
	   grep -qx 'comm ow_pong' "$TMPD/ttags"; then
		pass export_capture_labels_thread
	else
		fail export_capture_labels_thread "status $st3, pid $PP, tids $ping_tid $pong_tid: $(tr '\n' ' ' < "$TMPD/ttags" | head -c 300) $(head -c 200 "$TMPD/cap3.err")"
	fi
fi
if [ $st2 -ne 0 ]; then
	fail export_capture_speedscope "status $st2: $(head -c 300 "$TMPD/cap2.err")"
elif [ -z "$SS_WHY" ] && ! $PY "$TOP/tests/tools/export_stacks.py" schema "$SCHEMA" "$TMPD/cap.speedscope.json"; then
	fail export_capture_speedscope "not valid against speedscope's schema"
elif ! $STK speedscope "$TMPD/cap.speedscope.json" | grep -qE '^ow_pong;.*anon_pipe_read;.*;--;.*;ow_ping [0-9]+$'; then
	fail export_capture_speedscope "no ow_pong pipe stack"
else
	pass export_capture_speedscope
fi
