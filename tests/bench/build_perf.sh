#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# build_perf.sh - a perf that has `record --off-cpu` (Debian's perf is not
# built with BUILD_BPF_SKEL=1 and ignores it), for capture_bench.sh's side
# by side: tools/perf of Debian's linux-source package for the running
# release (linux-source-6.1 on bookworm), built with BUILD_BPF_SKEL=1 into
# a cache directory outside the tree.  Prints the perf binary's path on
# stdout and exits 0; or a one-line reason on stderr and exits 1.  Nothing
# of perf's code or output enters the tree.
#
# Environment: PERF_CACHE=/var/cache/offwake-bench/perf (the cache).
set -u
CACHE=${PERF_CACHE:-/var/cache/offwake-bench/perf}
PERF=$CACHE/bin/perf
say() { echo "build_perf: $*" >&2; }

# whether perf $1 has --off-cpu (one built without the skeleton says so)
offcpu_ok() {
	[ -x "$1" ] && ! "$1" record --off-cpu -e dummy -a -o /dev/null -- true 2>&1 |
		grep -qi -e 'BUILD_BPF_SKEL' -e 'unknown option'
}
[ -x "$PERF" ] && offcpu_ok "$PERF" && { echo "$PERF"; exit 0; }
[ "$(id -u)" = 0 ] || { say "needs root (apt-get, $CACHE)"; exit 1; }

# the newest linux-source-X.Y the archive has (bookworm: 6.1)
pkg=$(apt-cache search --names-only '^linux-source-[0-9.]+$' 2>/dev/null |
	awk '{ print $1 }' | sort -V | tail -1)
[ -n "$pkg" ] || { say "no linux-source package in the apt sources"; exit 1; }
ver=${pkg#linux-source-}
mkdir -p "$CACHE" || { say "cannot make $CACHE"; exit 1; }
log=$CACHE/build.log
: > "$log"
deps="$pkg clang llvm libelf-dev libdw-dev zlib1g-dev libcap-dev libzstd-dev
	libtraceevent-dev libslang2-dev libunwind-dev libbabeltrace-dev
	libssl-dev libnuma-dev flex bison make gcc pkg-config xz-utils python3"
missing=$(for p in $deps; do dpkg -s "$p" > /dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		$missing >> "$log" 2>&1 ||
		{ say "apt-get install $pkg and perf's build deps failed (see $log)"; exit 1; }
fi
tarball=$(ls /usr/src/linux-source-"$ver".tar.* 2>/dev/null | head -1)
[ -n "$tarball" ] || { say "$pkg installed no /usr/src/linux-source-$ver.tar.*"; exit 1; }
src=$CACHE/src
if [ ! -d "$src/linux-source-$ver/tools/perf" ]; then
	rm -rf "$src" && mkdir -p "$src" &&
	tar -C "$src" -xf "$tarball" "linux-source-$ver/tools" "linux-source-$ver/include" \
		"linux-source-$ver/arch" "linux-source-$ver/scripts" "linux-source-$ver/Makefile" \
		"linux-source-$ver/kernel" "linux-source-$ver/lib" >> "$log" 2>&1 ||
		{ say "cannot unpack $tarball (see $log)"; exit 1; }
fi
mkdir -p "$CACHE/build"
say "building perf from $pkg with BUILD_BPF_SKEL=1 (a few minutes; log: $log)"
make -C "$src/linux-source-$ver/tools/perf" -j"$(nproc)" BUILD_BPF_SKEL=1 \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JEVENTS=1 NO_DOCS=1 \
	O="$CACHE/build" prefix="$CACHE" install-bin >> "$log" 2>&1 ||
	{ say "perf's build failed (see $log)"; exit 1; }
offcpu_ok "$PERF" || { say "$PERF built but has no --off-cpu (see $log)"; exit 1; }
echo "$PERF"
