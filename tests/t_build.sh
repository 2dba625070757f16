#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# t_build.sh - a plain `make` on a machine without the build dependencies
# stops at once with the missing Debian packages named and `make deps`
# pointed to (it used to stop at "bpf/bpf_helpers.h file not found"); the
# check is simulated with a package that does not exist.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
if ! command -v dpkg-query > /dev/null; then
	skip build_deps_named "not a Debian system (the check needs dpkg-query)"
	exit 0
fi
sh tests/deps.sh --check gcc no-such-package-offwake > /dev/null 2> "$TMPD/err"; st=$?
if [ $st -ne 0 ] && grep -q 'missing Debian packages: no-such-package-offwake;' "$TMPD/err" &&
   grep -q "make deps" "$TMPD/err"; then
	pass build_deps_check
else
	fail build_deps_check "status $st: $(cat "$TMPD/err")"
fi
make -s OUT="$TMPD/b" BIN="$TMPD/b/offwake-svg" DEPS="gcc no-such-package-offwake" all \
	> "$TMPD/out" 2> "$TMPD/err"; st=$?
if [ $st -ne 0 ] && grep -q 'missing Debian packages: no-such-package-offwake' "$TMPD/err" &&
   ! grep -q 'error:' "$TMPD/err" && [ ! -e "$TMPD/b/bpf" ]; then
	pass build_deps_named
else
	fail build_deps_named "status $st: $(head -c 300 "$TMPD/err")"
fi
