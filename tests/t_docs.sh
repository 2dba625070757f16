#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_docs.sh - the README stays a front page and the docs stay linked:
# README.md is at most 300 lines; every relative link of README.md and
# docs/*.md names a file that exists, and its #anchor a heading of it;
# every docs/*.md is linked from the README; the README's test command is
# the one .ci/run runs; its Debian package list is the Makefile's
# BUILD_DEPS.  (Options and the man page: t_cli_docs.sh.)
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

MAX_LINES=300

# The file's text outside fenced code blocks, inline code spans dropped.
prose() { awk '/^[[:space:]]*```/ { f = !f; next } !f' "$1" | sed 's/`[^`]*`//g'; }

# The GitHub anchors of a Markdown file's headings, one a line: lower
# case, punctuation dropped, spaces to hyphens, a repeat numbered -1, -2.
anchors() {
	awk '/^[[:space:]]*```/ { f = !f; next } !f && /^##* / { sub(/^#+ +/, ""); print }' "$1" |
		tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _\x80-\xff-]//g; s/ /-/g' |
		awk '{ n = seen[$0]++; print (n ? $0 "-" n : $0) }'
}

# Every link target of a file: [text](target) and ![alt](target).
targets() { prose "$1" | grep -o '\]([^)]*)' | sed 's/^](//; s/)$//; s/ .*//'; }

n=$(wc -l < README.md)
if [ "$n" -le $MAX_LINES ]; then
	pass docs_readme_short
else
	fail docs_readme_short "README.md has $n lines, more than $MAX_LINES: move the reference into docs/"
fi

bad=
for f in README.md docs/*.md; do
	[ -f "$f" ] || continue
	dir=$(dirname "$f")
	while IFS= read -r t; do
		case $t in '' | [a-z]*:*) continue ;; esac	# a URL, mailto:
		path=${t%%#*}
		anchor=
		case $t in *'#'*) anchor=${t#*#} ;; esac
		file=$f
		[ -n "$path" ] && file=$dir/$path
		if [ ! -e "$file" ]; then
			bad="$bad $f:$t(no file)"
		elif [ -n "$anchor" ] && ! anchors "$file" | grep -qxF -- "$anchor"; then
			bad="$bad $f:$t(no heading)"
		fi
	done < <(targets "$f")
done
if [ -z "$bad" ]; then
	pass docs_links_resolve
else
	fail docs_links_resolve "broken links:$bad"
fi

bad=
linked=$(targets README.md | sed 's/#.*//' | sort -u)
for f in docs/*.md; do
	[ -f "$f" ] || continue
	grep -qxF "$f" <<< "$linked" || bad="$bad $f"
done
if [ ! -d docs ]; then
	fail docs_all_linked "no docs/ folder: the reference belongs there"
elif [ -z "$bad" ]; then
	pass docs_all_linked
else
	fail docs_all_linked "not linked from README.md:$bad"
fi

# .ci/run's command (its lines but comments, set and cd) against the
# README's: the code line whose comment says it runs every test
ci=$(grep -vE '^[[:space:]]*(#|$|set |cd )' .ci/run)
readme=$(awk '/^[[:space:]]*```/ { f = !f; next } f && /#.*every test/' README.md |
	sed 's/[[:space:]]*#.*//' | head -n 1)
if [ -n "$ci" ] && [ "$ci" = "$readme" ]; then
	pass docs_test_command
else
	fail docs_test_command ".ci/run runs '$ci', the README's test command is '$readme'"
fi

# the README's apt-get line against the Makefile's BUILD_DEPS
mk=$(make -s -f Makefile -f - print-build-deps <<< 'print-build-deps: ; @echo $(BUILD_DEPS)' |
	tr ' ' '\n' | grep . | sort)
apt=$(awk '/^[[:space:]]*```/ { f = !f; next } f && /apt-get install/' README.md | head -n 1 |
	sed 's/.*apt-get install//' | tr ' ' '\n' | grep -v '^-' | grep . | sort)
if [ -n "$mk" ] && [ "$mk" = "$apt" ]; then
	pass docs_install_list
else
	fail docs_install_list "README's apt-get line and BUILD_DEPS differ:$(diff <(echo "$apt") <(echo "$mk") | grep '^[<>]' | tr '\n' ' ')"
fi
