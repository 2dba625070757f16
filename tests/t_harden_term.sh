#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_harden_term.sh - issue 44 item 3: no escape sequence from the traced
# side reaches root's terminal.  A traced program (real capture, -- CMD)
# whose file name, and so its comm, holds ESC ] 0 ; T BEL (the pane's
# title), ESC [ 2 J (clear the screen), U+009B and a raw 0x9b (C1 CSI) and
# an invalid byte, with a thread named OSC 52 (the clipboard), renames a
# new build over itself before it exits: the capture's warning names the
# file ("changed on disk"), its frames are [FILE (changed)].  Checked:
# stderr of the capture, -f and --text output hold no C0 control but \n
# (and \t in --text and on stderr), no DEL, no C1 (raw or U+0080-U+009F),
# only valid UTF-8; the names are still there (\xNN on stderr, '?' in
# frames); --live's replay of what was said on stderr while its screen
# was up (the program's own hostile stderr) is escaped the same way.
# The sanitiser's unit tests: tests/unit_src/t_cap_harden_term.c.
. "$(dirname "$0")/lib.sh"
can_capture harden_term || exit 0
for t in cc python3; do
	command -v $t > /dev/null || { skip harden_term "$t not installed"; exit 0; }
done
cd "$TMPD" || exit 1

# the program's file name: its first 15 bytes are its comm
H=$'ow\e]0;T\a\e[2J\xc2\x9b\x9b\xff'
H_ESC='ow\x1b]0;T\x07\x1b[2J\xc2\x9b\x9b\xff'	# as stderr shows it
H_COMM='ow?]0:T??[2J???'			# as a frame shows its comm
H_FILE='ow?]0:T??[2J????'			# ... and its file
T_COMM='?]52:c:SGk=???'			# the thread's comm
cat > prog.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
__attribute__((noinline)) void ow_old_leaf(void) { usleep(300000); }
__attribute__((noinline)) void ow_old_mid(void) { ow_old_leaf(); }
static void *named(void *arg)
{
	prctl(PR_SET_NAME, "\x1b]52;c;SGk=\x07\xc2\x9b");	/* OSC 52: the clipboard */
	ow_old_mid();
	return arg;
}
int main(int argc, char **argv)
{
	pthread_t t;

	pthread_create(&t, NULL, named, NULL);
	ow_old_mid();
	pthread_join(t, NULL);
	if (argc > 2)	/* for --live: said while its screen is up */
		fputs("\x1b]0;pwned\x07\x1b]52;c;SGk=\x07\x1b[2J\xc2\x9b\x9b" "end\n", stderr);
	return rename(argv[1], argv[0]) != 0;
}
C
if ! cc -O1 -g -fno-omit-frame-pointer -pthread -o prog prog.c ||
   ! cc -O1 -g -fno-omit-frame-pointer -pthread -Dow_old_leaf=ow_new_leaf -Dow_old_mid=ow_new_mid \
	-o new.bin prog.c; then
	skip harden_term "cannot build a C program"
	exit 0
fi

# clean FILE ALLOWED: FILE is valid UTF-8 without C0 (but ALLOWED: "nl"
# or "nltab"), DEL or C1 controls; else says where
clean() {
	python3 - "$1" "$2" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
allow = "\n\t" if sys.argv[2] == "nltab" else "\n"
try:
    s = data.decode("utf-8")
except UnicodeDecodeError as e:
    print("invalid UTF-8 at byte %d: %r" % (e.start, data[max(0, e.start - 30):e.start + 10]))
    sys.exit(1)
for i, ch in enumerate(s):
    o = ord(ch)
    if (o < 0x20 and ch not in allow) or 0x7f <= o <= 0x9f:
        print("U+%04X at character %d: %r" % (o, i, s[max(0, i - 30):i + 10]))
        sys.exit(1)
PY
}
# show FILE: its start, controls made visible (not sent to the terminal)
show() { head -c 400 "$1" | cat -v; }
# expect_clean NAME FILE ALLOWED
expect_clean() {
	local why
	if why=$(clean "$2" "$3"); then pass "$1"; else fail "$1" "$why (kept: $2)"; fi
}
# run NAME ARGS...: a capture of a fresh copy of the program: NAME.out, NAME.err
run() {
	local n=$1
	shift
	cp prog "$H" && cp new.bin "$n.new" &&
	timeout 120 "$OFFWAKE" "$@" -- "$TMPD/$H" "$TMPD/$n.new" > "$n.out" 2> "$n.err"
}

# ---- -f ------------------------------------------------------------------
run fold -f; st=$?
if [ $st -ne 0 ]; then
	fail harden_term_capture "capture exit $st: $(show fold.err)"
else
	pass harden_term_capture
fi
expect_clean harden_term_stderr_clean fold.err nltab
if grep -aqF "changed on disk since they were mapped ($TMPD/$H_ESC: another file is there now)" fold.err
then pass harden_term_stderr_names_escaped
else fail harden_term_stderr_names_escaped "no escaped file name: $(grep -a 'changed' fold.err | show /dev/stdin)"; fi
expect_clean harden_term_folded_clean fold.out nl
if grep -aqF "$H_COMM;" fold.out && grep -aqF "[$H_FILE (changed)]" fold.out
then pass harden_term_folded_names_kept
else fail harden_term_folded_names_kept "no '$H_COMM' stacks with [$H_FILE (changed)]: $(grep -a '^ow' fold.out | show /dev/stdin)"; fi
if grep -aqF "$T_COMM;" fold.out
then pass harden_term_folded_thread_name_kept
else fail harden_term_folded_thread_name_kept "no '$T_COMM' stacks: $(show fold.out)"; fi

# ---- --text --------------------------------------------------------------
run text --text; st=$?
if [ $st -ne 0 ]; then
	fail harden_term_text "capture exit $st: $(show text.err)"
else
	expect_clean harden_term_text_clean text.out nltab
	expect_clean harden_term_text_stderr_clean text.err nltab
	if grep -aqF "$H_COMM" text.out && grep -aqF "$T_COMM" text.out
	then pass harden_term_text_names_kept
	else fail harden_term_text_names_kept "no '$H_COMM' nor '$T_COMM': $(show text.out)"; fi
fi

# ---- --live: the program's stderr, kept while the screen is up ----------
if ! command -v tmux > /dev/null; then
	skip harden_term_live "no tmux"
	exit 0
fi
T=(tmux -L "owterm$$" -f /dev/null)
trap '"${T[@]}" kill-server 2> /dev/null; rm -rf "$TMPD"' EXIT
cp prog "$H" && cp new.bin live.new
"${T[@]}" new-session -d -x 80 -y 24 -s live \
	"$OFFWAKE --live -o $TMPD/live.folded -- '$TMPD/$H' $TMPD/live.new say 2> $TMPD/live.err; echo \$? > $TMPD/live.st"
for _ in $(seq 1200); do [ -s live.st ] && break; sleep 0.1; done
st=$(cat live.st 2> /dev/null)
if [ "$st" != 0 ]; then
	fail harden_term_live "status ${st:-none (still running after 120 s)}: $(show live.err)"
else
	expect_clean harden_term_live_stderr_clean live.err nltab
	if grep -aqF '\x1b]0;pwned\x07\x1b]52;c;SGk=\x07\x1b[2J\xc2\x9b\x9bend' live.err
	then pass harden_term_live_stderr_escaped
	else fail harden_term_live_stderr_escaped "the program's message not there escaped: $(show live.err)"; fi
fi
