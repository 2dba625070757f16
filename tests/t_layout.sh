#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_layout.sh - the layering the README describes, checked on the sources:
# base/ includes only base/; render/ includes nothing of src/ or bpf/
# (base/ only); src/ sees the renderer only through render/fg.h; src/'s
# folders depend one way (capture -> symbols -> common; reports -> common;
# capture and reports -> export -> common; all may use base/); and
# librender.a links alone (no symbol it needs comes from src/).
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

# quoted includes of one file, one per line
incs() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }

bad=""
for f in base/*.c base/*.h; do
	for i in $(incs "$f"); do
		[ -f "base/$i" ] || bad="$bad $f:$i"
	done
done
[ -z "$bad" ] && pass "layout: base/ includes only base/" ||
	fail "layout: base/ includes only base/" "outside includes:$bad"

bad=""
for f in render/*.c render/*.h; do
	for i in $(incs "$f"); do
		case $i in base/*) [ -f "$i" ] && continue ;; esac
		[ -f "render/$i" ] || bad="$bad $f:$i"
	done
done
[ -z "$bad" ] && pass "layout: render/ includes only render/ and base/" ||
	fail "layout: render/ includes only render/ and base/" "outside includes:$bad"

render_hdrs=$(cd render && ls *.h)
bad=""
for f in src/*.[ch] src/*/*.[ch]; do
	for i in $(incs "$f"); do
		case $i in render/*) bad="$bad $f:$i"; continue ;; esac
		case " $(echo $render_hdrs) " in
		*" $i "*) [ "$i" = fg.h ] || bad="$bad $f:$i" ;;
		esac
	done
done
[ -z "$bad" ] && pass "layout: src/ uses render/ through fg.h only" ||
	fail "layout: src/ uses render/ through fg.h only" "internal headers:$bad"

# folder -> folders it may include from
allowed() {
	case $1 in
	common) echo "common base" ;;
	symbols) echo "symbols common base" ;;
	capture) echo "capture symbols export common base" ;;
	reports) echo "reports export common base" ;;
	export) echo "export common base" ;;
	*) echo "" ;;
	esac
}
bad=""
for d in common symbols capture reports export; do
	for f in src/$d/*.[ch]; do
		[ -f "$f" ] || continue
		for i in $(incs "$f"); do
			case $i in
			*/*) top=${i%%/*} ;;
			*) [ -f "src/$d/$i" ] && top=$d || continue ;;
			esac
			case " $(allowed "$d") " in *" $top "*) ;; *) bad="$bad $f:$i" ;; esac
		done
	done
done
[ -z "$bad" ] && pass "layout: src/ folders depend one way" ||
	fail "layout: src/ folders depend one way" "against the grain:$bad"

lib=$TOP/build/librender.a
if [ -f "$lib" ] && command -v nm > /dev/null; then
	undef=$(nm -u "$lib" 2> /dev/null | awk '{print $2}' | sort -u)
	defd=$(nm --defined-only "$lib" 2> /dev/null | awk 'NF == 3 {print $3}' | sort -u)
	own=$(comm -23 <(echo "$undef") <(echo "$defd") | grep -E '^(ow_|htab_|capture_|fold_|usyms_|ksyms_|unfold_|diff_)' || true)
	[ -z "$own" ] && pass "layout: librender.a needs nothing from src/" ||
		fail "layout: librender.a needs nothing from src/" "$(echo $own)"
else
	skip "layout: librender.a needs nothing from src/" "build/librender.a not built"
fi
