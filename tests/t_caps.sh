#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_caps.sh - the capabilities a capture needs (README "Install" and
# "Troubleshooting", offwake-svg(8) "PRIVILEGES"), checked the way a user
# would grant them: a copy of the binary with file capabilities (setcap),
# run as nobody.
#   caps_set_own       CAP_BPF, CAP_PERFMON, CAP_SYSLOG: whole stacks, kernel
#                      frames named, of a process of the same user (by tables:
#                      the workload has no frame pointers)
#   caps_set_other     the same for a root process (its files readable)
#   caps_no_<cap>      each of the three dropped: exit 1, one line naming it
#   caps_unreadable    a root process's binary nobody may read: [pp_hidden]
#                      frames and a warning naming the file and what helps
#   caps_files_set     + CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE and
#                      CAP_CHECKPOINT_RESTORE: that binary, and a deleted
#                      one, named
#   caps_root_*        uid 0 with a reduced set (capsh --drop): CAP_SYSLOG
#                      is needed; CAP_SYS_ADMIN stands in for the other two
# Needs root (to set the capabilities), kernel BTF, setcap/capsh (Debian's
# libcap2-bin, installed here if missing) and a filesystem with xattrs.
. "$(dirname "$0")/lib.sh"
WL=$TOP/tests/workloads

can_capture caps "needs root to set file capabilities" || exit 0
if ! command -v setcap > /dev/null || ! command -v capsh > /dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcap2-bin < /dev/null > "$TMPD/apt.log" 2>&1
	if ! command -v setcap > /dev/null || ! command -v capsh > /dev/null; then
		skip caps "setcap/capsh missing and libcap2-bin did not install: $(tail -c 300 "$TMPD/apt.log")"
		exit 0
	fi
fi
if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 2 ]; then
	skip caps "kernel.kptr_restrict=2 hides kernel addresses from every capture"
	exit 0
fi
NOBODY=nobody
if ! id -u "$NOBODY" > /dev/null 2>&1; then
	skip caps "no user nobody"
	exit 0
fi

chmod 755 "$TMPD"
# No frame pointers: whole stacks need the unwind tables.
if ! cc -O1 -g -fomit-frame-pointer -pthread -o "$TMPD/pingpong" "$WL/pingpong.c"; then
	fail caps_build "cannot compile pingpong.c"
	exit 0
fi
mkdir -p "$TMPD/secret" "$TMPD/del" "$TMPD/nb" "$TMPD/bin"
chmod 700 "$TMPD/secret"
chmod 777 "$TMPD/nb"
cp "$TMPD/pingpong" "$TMPD/secret/pp_hidden"
cp "$TMPD/pingpong" "$TMPD/del/pp_deleted"
cp "$OFFWAKE" "$TMPD/bin/offwake-svg"
chmod 755 "$TMPD/bin" "$TMPD/bin/offwake-svg"
if ! setcap cap_bpf,cap_perfmon,cap_syslog+ep "$TMPD/bin/offwake-svg" 2> "$TMPD/setcap.err"; then
	skip caps "setcap on $TMPD: $(cat "$TMPD/setcap.err") (no xattrs?)"
	exit 0
fi

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT

# start NAME USER BINARY: a pingpong; sets PID (its process id)
start() {
	local tids=$TMPD/nb/$1.tids
	runuser -u "$2" -- "$3" 300 "$tids" > /dev/null 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$tids" ] && break; sleep 0.1; done
	PID=$(cut -d' ' -f1 "$tids" 2> /dev/null)
}
start own "$NOBODY" "$TMPD/pingpong"; OWN=$PID
start other root "$TMPD/pingpong"; OTHER=$PID
start hidden root "$TMPD/secret/pp_hidden"; HIDDEN=$PID
start deleted root "$TMPD/del/pp_deleted"; DELETED=$PID
rm -f "$TMPD/del/pp_deleted"
if [ -z "$OWN" ] || [ -z "$OTHER" ] || [ -z "$HIDDEN" ] || [ -z "$DELETED" ]; then
	fail caps_workload "a pingpong did not start"
	exit 0
fi

# as CAPS PID NAME: capture PID for 1 s as nobody with exactly the file
# capabilities CAPS (comma-separated, "" for none); $NAME.folded/.err/.st
as() {
	setcap -r "$TMPD/bin/offwake-svg" 2> /dev/null
	[ -z "$1" ] || setcap "$1+ep" "$TMPD/bin/offwake-svg"
	runuser -u "$NOBODY" -- timeout 300 "$TMPD/bin/offwake-svg" -f -p "$2" 1 \
		> "$TMPD/$3.folded" 2> "$TMPD/$3.err"
	echo $? > "$TMPD/$3.st"
}
# whole NAME: a whole ow_pong stack (kernel frames named) woken by ow_ping
whole() {
	grep -qE '^ow_pong;.*start_thread;.*pong_loop;.*read;.*;anon_pipe_read;.*--;.*anon_pipe_write;.*;ping_loop;main;.*ow_ping ' "$TMPD/$1.folded"
}
why() { echo "status $(cat "$TMPD/$1.st"): $(head -c 600 "$TMPD/$1.err") | $(grep -m1 '^ow_pong' "$TMPD/$1.folded" | cut -c1-300)"; }

SET=cap_bpf,cap_perfmon,cap_syslog
as $SET "$OWN" own
if [ "$(cat "$TMPD/own.st")" = 0 ] && whole own; then
	pass caps_set_own
else
	fail caps_set_own "$(why own)"
fi
as $SET "$OTHER" other
if [ "$(cat "$TMPD/other.st")" = 0 ] && whole other; then
	pass caps_set_other
else
	fail caps_set_other "$(why other)"
fi

# Without CAP_SYSLOG, kernel addresses are hidden unless kptr_restrict=0
# and perf_event_paranoid <= 1 (then it is not needed).
syslog_needed=1
if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 0 ] &&
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; then
	syslog_needed=
fi
for c in CAP_BPF CAP_PERFMON CAP_SYSLOG; do
	lc=${c,,}
	if [ $c = CAP_SYSLOG ] && [ -z "$syslog_needed" ]; then
		skip caps_no_$lc "kptr_restrict=0 and perf_event_paranoid<=1: kernel addresses are shown without it"
		continue
	fi
	as "$(tr ',' '\n' <<< $SET | grep -vx "$lc" | paste -sd,)" "$OWN" no_$lc
	if [ "$(cat "$TMPD/no_$lc.st")" = 1 ] && [ "$(wc -l < "$TMPD/no_$lc.err")" = 1 ] &&
	   grep -qE "^offwake-svg: [^:]+: .*missing $c \(a capture needs CAP_BPF, CAP_PERFMON and CAP_SYSLOG, or root\)$" "$TMPD/no_$lc.err" &&
	   [ ! -s "$TMPD/no_$lc.folded" ]; then
		pass caps_no_$lc
	else
		fail caps_no_$lc "$(why no_$lc)"
	fi
done

as $SET "$HIDDEN" hidden
if [ "$(cat "$TMPD/hidden.st")" = 0 ] && ! whole hidden && grep -q '^ow_pong;.*\[pp_hidden\]' "$TMPD/hidden.folded" &&
   grep -qE "^offwake-svg: warning: [0-9]+ files mapped by traced processes could not be opened \($TMPD/secret/pp_hidden: Permission denied\): their frames have no function names.*CAP_DAC_READ_SEARCH" "$TMPD/hidden.err"; then
	pass caps_unreadable
else
	fail caps_unreadable "$(why hidden)"
fi

FILES=$SET,cap_dac_read_search,cap_sys_ptrace,cap_checkpoint_restore
as $FILES "$HIDDEN" hidden_files
as $FILES "$DELETED" deleted_files
if [ "$(cat "$TMPD/hidden_files.st")" = 0 ] && whole hidden_files &&
   [ "$(cat "$TMPD/deleted_files.st")" = 0 ] && whole deleted_files &&
   ! grep -q 'could not be opened (.*pp_\(hidden\|deleted\)' "$TMPD/hidden_files.err" "$TMPD/deleted_files.err"; then
	pass caps_files_set
else
	fail caps_files_set "$(why hidden_files) || $(why deleted_files)"
fi

# uid 0 with a reduced set: root's own files pass by uid, capabilities not.
asroot() {
	capsh --drop="$1" -- -c "timeout 300 '$OFFWAKE' -f -p $OTHER 1 > '$TMPD/$2.folded' 2> '$TMPD/$2.err'; echo \$? > '$TMPD/$2.st'"
}
if [ -n "$syslog_needed" ]; then
	asroot cap_syslog root_syslog
	if [ "$(cat "$TMPD/root_syslog.st")" = 1 ] && grep -q '^offwake-svg: reading /proc/kallsyms: kernel addresses hidden: missing CAP_SYSLOG' "$TMPD/root_syslog.err"; then
		pass caps_root_no_syslog
	else
		fail caps_root_no_syslog "$(why root_syslog)"
	fi
fi
asroot cap_bpf,cap_perfmon root_admin
asroot cap_bpf,cap_perfmon,cap_sys_admin root_noadmin
if [ "$(cat "$TMPD/root_admin.st")" = 0 ] && whole root_admin &&
   [ "$(cat "$TMPD/root_noadmin.st")" = 1 ] &&
   grep -q '^offwake-svg: loading the BPF programs: Operation not permitted: missing CAP_BPF, CAP_PERFMON (a capture' "$TMPD/root_noadmin.err"; then
	pass caps_root_admin
else
	fail caps_root_admin "$(why root_admin) || $(why root_noadmin)"
fi
