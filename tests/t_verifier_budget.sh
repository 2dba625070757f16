#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_verifier_budget.sh - no BPF program of ours needs more than 150,000 of
# the verifier's instructions processed (its limit is 1,000,000), in every
# configuration that changes what the programs contain: start-up time is
# mostly the verifier's (2.3 s a program at 530k), and the budget leaves
# room for three more unwinders of today's size.  The figures are the
# kernel's own, from OFFWAKE_DEBUG=stats (libbpf's load log); not timed.
. "$(dirname "$0")/lib.sh"
BUDGET=150000
can_capture verifier_budget || exit 0
cd "$TMPD" || exit 1
sleep 600 & SP=$!
# a CPython process: its walks' programs load when it is first seen
PY=$(command -v python3.11 || command -v python3)
"$PY" -c 'import time
while True: time.sleep(0.01)' & PP=$!
trap 'kill $SP $PP 2> /dev/null; rm -rf "$TMPD"' EXIT
for cfg in "" "--python=off" "--unwind=fp" "--unwind=cfi" "-U" "-K" \
	   "--chain-depth 3" "-m 1000" "--python=lines" "env:OFFWAKE_RAW_TP=1" \
	   "--timeline" "--timeline -m 1000 --chain-depth 4" \
	   "py:" "py:-m 1000" "py:--python=lines"; do
	name="verifier_budget ${cfg:-defaults}"
	args=$cfg; envs=; pid=$SP; q=-q; secs=1
	case $cfg in
	env:*) envs=${cfg#env:}; args= ;;
	# (2 s: time for the late load on a loaded VM, before the end)
	py:*) args=${cfg#py:}; pid=$PP; q=; secs=2 ;;
	esac
	# shellcheck disable=SC2086
	env $envs OFFWAKE_DEBUG=stats timeout 300 "$OFFWAKE" $q -f -p $pid $args $secs \
		> out 2> err; st=$?
	figs=$(grep -o 'processed [0-9]* insns' err | awk '{ print $2 }')
	n=$(echo "$figs" | grep -c .)
	max=$(echo "$figs" | sort -n | tail -1)
	# a Python process traced: its walks loaded as it was seen
	if [ "$pid" = "$PP" ] && [ $st -eq 0 ] &&
	   ! grep -q 'python: 1 process running CPython.*the walker loaded at the first' err; then
		fail "$name" "the Python walks did not load: $(grep -v '^libbpf' err | grep -m2 -i 'python\|error' | head -c 300)"
		continue
	fi
	if [ $st -ne 0 ] || [ "$n" -lt 2 ]; then
		fail "$name" "status $st, $n programs' figures: $(grep -m2 -i 'error\|fail' err | head -c 300)"
	elif [ "$max" -gt $BUDGET ]; then
		fail "$name" "a program processed $max instructions (budget $BUDGET): $(echo $figs)"
	else
		pass "$name"
		echo "  ($n programs: $(echo $figs))"
	fi
done
