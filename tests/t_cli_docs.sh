#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_cli_docs.sh - the command line's one source of truth is --help (printed
# from args.c's option table and main.c's command table); this checks that
# the usage line, the man page's SYNOPSIS and CAPTURE OPTIONS, and the bash
# completion name every capture option, operand and command --help lists
# (and the completion every render option "render --help" lists), that
# an option of choices ("--group comm|process|thread") has the same ones
# in its man page tag and its completion, and that the OFFWAKE_*
# settings (src/common/settings.c's rows, "--help=env") are all the ones
# src/ names, each in the man page's ENVIRONMENT, none read with getenv()
# elsewhere; and names what is missing.  -h/--help and --version are
# GNU's and not asked of the man page.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
MAN=src/offwake-svg.8
COMP=src/offwake-svg.bash

"$OFFWAKE" --help > "$TMPD/help" || { fail cli_docs_help "--help failed"; exit 0; }
# the rows of one --help section ("NAME  help"), first column only
section() {
	awk -v s="$1" '$0 == s { on = 1; next } on && /^$/ { exit }
		on && /^  [^ ]/ { sub(/^  /, ""); sub(/  .*/, ""); print }' "$TMPD/help"
}
# "-p, --pid PID[,PID...]" -> "-p --pid": an option row's names
names() { tr ',' ' ' <<< "$1" | tr ' ' '\n' | grep -E '^--?[A-Za-z]'; }
# man markup to text, brackets, bars and commas to spaces, one line
plain() { sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/^\.[A-Z]* //' | tr '[]|,\n' '     ' | tr -s ' '; }
# has TEXT WORD: WORD stands in TEXT between spaces
has() { [[ " $1 " == *" $2 "* ]]; }
# report NAME MISSING COUNT MIN: pass when nothing is missing and COUNT
# (what was looked for) is at least MIN, so a broken extraction fails
report() {
	if [ -z "$2" ] && [ "$3" -ge "$4" ]; then
		pass "$1"
	else
		fail "$1" "${2:+missing:$2; }$3 checked"
	fi
}

mapfile -t rows < <(section "options:")
mapfile -t operands < <(section "positional arguments:")
mapfile -t commands < <(section "commands (each has its own --help):" | cut -d' ' -f1)
usage=$(sed -n '1,/^       [^ ]/p' "$TMPD/help" | sed '$d' | plain)
syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$MAN")
syn_capture=$(sed -n '2,/^\.br/p' <<< "$syn" | plain)
tags=$(sed -n '/^\.SH CAPTURE OPTIONS/,/^\.SH/{/^\.TP/{n;p}}' "$MAN" | sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' | tr '[]|,' '    ')

# tagged NAME...: a .TP tag of CAPTURE OPTIONS names them all
tagged() {
	local t x ok
	while IFS= read -r t; do
		ok=1
		for x in "$@"; do has "$t" "$x" || ok=""; done
		[ -n "$ok" ] && return 0
	done <<< "$tags"
	return 1
}

# usage line and man SYNOPSIS: each option by its first name, as argparse
m_usage=""; m_syn=""; m_tag=""
for r in "${rows[@]}"; do
	n=$(names "$r")
	first=$(head -1 <<< "$n")
	has "$usage" "$first" || m_usage="$m_usage $first"
	case $first in -h|--version) continue ;; esac
	has "$syn_capture" "$first" || m_syn="$m_syn $first"
	# shellcheck disable=SC2086
	tagged $n || m_tag="$m_tag $(echo $n | tr ' ' /)"
done
for o in "${operands[@]}"; do
	w=${o%% \[*}	# "-- CMD [ARGS...]" -> "-- CMD"
	has "$usage" "$w" || m_usage="$m_usage '$o'"
	has "$syn_capture" "$w" || m_syn="$m_syn '$o'"
	tagged "$w" || m_tag="$m_tag '$o'"
done
report cli_docs_usage "$m_usage" $((${#rows[@]} + ${#operands[@]})) 25
report cli_docs_man_synopsis "$m_syn" $((${#rows[@]} + ${#operands[@]})) 25
report cli_docs_man_options "$m_tag" $((${#rows[@]} + ${#operands[@]})) 25

# man SYNOPSIS: a line per command
m=""
for c in "${commands[@]}"; do
	grep -qx "\.B offwake-svg $c" <<< "$syn" || m="$m $c"
done
report cli_docs_man_commands "$m" ${#commands[@]} 4

# bash completion: what it offers after "offwake-svg -", "offwake-svg "
# and "offwake-svg render -"
offered() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_offwake_svg; echo "${COMPREPLY[*]}"' _ "$COMP" "$@"
}
capture=$(offered offwake-svg -)
m=""
for r in "${rows[@]}"; do
	for x in $(names "$r"); do has "$capture" "$x" || m="$m $x"; done
done
report cli_docs_completion_options "$m" ${#rows[@]} 20
cmds=$(offered offwake-svg "")
m=""
for c in "${commands[@]}"; do has "$cmds" "$c" || m="$m $c"; done
report cli_docs_completion_commands "$m" ${#commands[@]} 4
mapfile -t ropts < <("$OFFWAKE" render --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p')
rend=$(offered offwake-svg render -)
m=""
for x in "${ropts[@]}"; do has "$rend" "$x" || m="$m $x"; done
report cli_docs_completion_render "$m" ${#ropts[@]} 20

# options of choices: "--unwind auto|fp|cfi" in --help; the man page's tag
# names the same choices, the completion offers them and no others
m_man=""; m_comp=""; n=0
for r in "${rows[@]}"; do
	val=${r##* }
	case $val in *'|'*) ;; *) continue ;; esac
	case $val in *'['*) continue ;; esac
	opt=$(names "$r" | tail -1)
	mapfile -t ch < <(tr '|' '\n' <<< "$val")
	n=$((n + 1))
	tagged "$opt" "${ch[@]}" || m_man="$m_man $opt"
	got=$(offered offwake-svg "$opt" "" | tr ' ' '\n' | sort | xargs)
	want=$(printf '%s\n' "${ch[@]}" | sort | xargs)
	[ "$got" = "$want" ] || m_comp="$m_comp $opt($got, not $want)"
done
report cli_docs_man_choices "$m_man" "$n" 5
report cli_docs_completion_choices "$m_comp" "$n" 5

# the OFFWAKE_* settings: the rows --help=env lists, every name src/ uses
# (not the version macro nor header guards), the man page's ENVIRONMENT
mapfile -t envs < <("$OFFWAKE" --help=env | sed -n 's/^  \(OFFWAKE_[A-Z0-9_]*\)=.*/\1/p')
used=$(grep -rhoE '\bOFFWAKE_[A-Z0-9_]+' src | grep -vxE 'OFFWAKE_(VERSION|H)' | sort -u)
m=""
for x in $used; do has "${envs[*]}" "$x" || m="$m $x"; done
report cli_docs_settings_rows "$m" "$(wc -w <<< "$used")" 15
mantags=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH/{/^\.TP/{n;p}}' "$MAN" | sed -e 's/\\f[BIRP]//g' | xargs)
m=""
for x in "${envs[@]}"; do has "$mantags" "$x" || m="$m $x"; done
for x in $mantags; do
	case $x in OFFWAKE_*) has "${envs[*]}" "$x" || m="$m $x(not a row)" ;; esac
done
report cli_docs_man_environment "$m" ${#envs[@]} 15
# read in one place: src/common/settings.c; src/unwind/table_cache.c reads
# OFFWAKE_UNWIND_CACHE itself (linked into the unit tests without
# settings.c); render/ reads none (it cannot see src/)
bad=$(grep -rlE 'getenv\("OFFWAKE_' src render | grep -vxE 'src/common/settings.c|src/unwind/table_cache.c' | xargs)
[ -z "$bad" ] && [ -f src/common/settings.c ] && pass cli_docs_settings_one_place ||
	fail cli_docs_settings_one_place "getenv(\"OFFWAKE_...\") in: $bad"
