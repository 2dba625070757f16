#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_layout.sh - the layering the README describes, checked on the sources:
# render/base/ (the library's libc-only helpers) includes only itself;
# render/ includes nothing of src/ or bpf/; src/ sees the renderer only
# through render/fg.h, and may use render/base/ ("base/..."); src/'s
# folders depend one way (capture -> unwind -> symbols -> common; reports
# -> common; capture and reports -> export -> common; live -> capture and
# export; all may use base/);
# librender.a links alone (no symbol it needs comes from src/); the
# output formats are reached through the writers' table only.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

# quoted includes of one file, one per line
incs() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }

bad=""
for f in render/base/*.c render/base/*.h; do
	for i in $(incs "$f"); do
		case $i in */*) bad="$bad $f:$i"; continue ;; esac
		[ -f "render/base/$i" ] || bad="$bad $f:$i"
	done
done
[ -z "$bad" ] && pass "layout: render/base/ includes only render/base/" ||
	fail "layout: render/base/ includes only render/base/" "outside includes:$bad"

bad=""
for f in render/*.c render/*.h; do
	for i in $(incs "$f"); do
		case $i in base/*) [ -f "render/$i" ] && continue ;; esac
		[ -f "render/$i" ] || bad="$bad $f:$i"
	done
done
[ -z "$bad" ] && pass "layout: render/ includes only render/" ||
	fail "layout: render/ includes only render/" "outside includes:$bad"

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
	unwind) echo "unwind symbols common base" ;;
	capture) echo "capture unwind symbols export common base" ;;
	reports) echo "reports export common base" ;;
	export) echo "export common base" ;;
	live) echo "live capture export common base" ;;
	*) echo "" ;;
	esac
}
bad=""
for d in common symbols unwind capture reports export live; do
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

# The writers are reached through their table (src/export/writers.h) and
# the profile model (profile.h) only: outside src/export/ nothing includes
# a writer's header (export_pprof.h, ...), and a writer's function is
# named by its own file and its row in writers.c, nowhere else.
bad=""
for f in src/*.[ch] src/*/*.[ch]; do
	case $f in src/export/*) continue ;; esac
	for i in $(incs "$f"); do
		case $i in
		export/writers.h | export/profile.h | export/export_info.h) ;;
		export/*) bad="$bad $f:$i" ;;
		esac
	done
done
for fn in $(grep -ho '^int export_[a-z]*_write' src/export/*.c | sed 's/^int //'); do
	for f in $(grep -lw "$fn" src/*.[ch] src/*/*.[ch]); do
		case $f in src/export/writers.c) ;; *) grep -q "^int $fn(" "$f" || bad="$bad $f:$fn" ;; esac
	done
done
[ -z "$bad" ] && pass "layout: writers reached through their table only" ||
	fail "layout: writers reached through their table only" "around the table:$bad"

# fg.h is the whole of the renderer src/ sees: it includes no other
# render/ header (pnum.h was one), and src/ handles counts through its
# fg_count accessors, never pnum's names.
bad=$(incs render/fg.h | while read -r i; do [ -f "render/$i" ] && echo "$i"; done)
[ -z "$bad" ] && pass "layout: fg.h includes no other render/ header" ||
	fail "layout: fg.h includes no other render/ header" "$(echo $bad)"
bad=$(grep -lE '"(render/)?pnum\.h"|\bpnum_|struct pnum\b' src/*.[ch] src/*/*.[ch])
[ -z "$bad" ] && pass "layout: src/ handles counts through fg_count, not pnum" ||
	fail "layout: src/ handles counts through fg_count, not pnum" "$(echo $bad)"

# No include circles among render/base/, render/ and src/: a file that calls a
# function declared in a header it includes (directly or not) depends on
# the file defining it, and on the header's own file; x.c and x.h are one
# node.
circles=$(perl - render/base/*.[ch] render/*.[ch] src/*.[ch] src/*/*.[ch] <<'PERL'
use strict;
my %text;
for my $f (@ARGV) {
	local $/;
	open(my $h, '<', $f) or next;
	my $t = <$h>;
	$t =~ s{/\*.*?\*/}{ }gs;
	$t =~ s{//[^\n]*}{}g;
	$text{$f} = $t;
}
sub node { my $f = shift; $f =~ s/\.[ch]$//; $f }
sub resolve {
	my ($f, $i) = @_;
	(my $dir = $f) =~ s{/[^/]*$}{};
	for my $c ("$dir/$i", "render/$i", "src/$i", $i) {
		return $c if exists $text{$c};
	}
	return undef;
}
my (%def, %inc);
for my $f (keys %text) {
	my $t = $text{$f};
	$inc{$f} = [ grep { defined } map { resolve($f, $_) } $t =~ /^\s*#\s*include\s*"([^"]+)"/mg ];
	next unless $f =~ /\.c$/;
	for my $l (split /\n/, $t) {
		next if $l =~ /^static\b/ || $l =~ /;\s*$/;
		$def{$1} = node($f) if $l =~ /^[A-Za-z_][\w \*]*?\b([a-z_]\w*)\(/;
	}
}
my %edge;
for my $f (keys %text) {
	my %seen;
	my @todo = @{ $inc{$f} };
	while (@todo) {
		my $h = shift @todo;
		next if $seen{$h}++;
		push @todo, @{ $inc{$h} };
	}
	my %used = map { $_ => 1 } $text{$f} =~ /\b([a-z_]\w*)\s*\(/g;
	my $n = node($f);
	for my $h (keys %seen) {
		$edge{$n}{ node($h) } = 1 if grep { $_ eq $h } @{ $inc{$f} };
		for my $name ($text{$h} =~ /\b([a-z_]\w*)\s*\(/g) {
			$edge{$n}{ $def{$name} } = 1 if $used{$name} && $def{$name};
		}
	}
	delete $edge{$n}{$n};
}
# depth-first search; a grey node met again closes a circle
my (%state, @path, %found);
sub visit {
	my $n = shift;
	$state{$n} = 1;
	push @path, $n;
	for my $m (sort keys %{ $edge{$n} || {} }) {
		if (($state{$m} || 0) == 1) {
			my @c = @path;
			shift @c while $c[0] ne $m;
			my $k = join(' -> ', @c, $m);
			print "$k\n" unless $found{$k}++;
		} elsif (!$state{$m}) {
			visit($m);
		}
	}
	pop @path;
	$state{$n} = 2;
}
visit($_) for sort keys %edge;
PERL
)
[ -z "$circles" ] && pass "layout: no include circles" ||
	fail "layout: no include circles" "$(echo "$circles" | paste -sd ';')"

# The capture session's state is private to src/capture/: elsewhere only
# capture.h's calls (struct capture opaque), and engine.h is included in
# src/capture/ only.
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*"(capture/)?engine\.h"' $(ls src/*.[ch] src/*/*.[ch] tests/unit_src/*.c 2> /dev/null | grep -v '^src/capture/') 2> /dev/null)
bad="$bad $(grep -lE '(->|\.)(agg|fo|skel|stacks|losses)\b.*\bcapture\b|struct capture[[:space:]]*\{' $(ls src/*.[ch] src/*/*.[ch] | grep -v '^src/capture/') 2> /dev/null)"
bad=$(echo $bad)
[ -z "$bad" ] && pass "layout: struct capture is private to src/capture/" ||
	fail "layout: struct capture is private to src/capture/" "engine.h or struct capture's fields used in: $bad"

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
