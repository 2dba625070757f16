#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deps.sh - install the Debian packages given as arguments that are missing
# (with --check: say which are missing and fail, install nothing).
# Non-interactive; a clear message when it cannot install.
# --check: only say what is missing (plain make), install nothing
check=
[ "${1:-}" = --check ] && { check=1; shift; }
command -v dpkg-query > /dev/null || exit 0	# not Debian: nothing to say
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ -n "$check" ]; then
	echo "offwake-svg build: missing Debian packages:$missing; 'make deps' (as root) installs them, or install them with apt-get" >&2
	exit 1
fi
echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing; run 'make deps' as root or install them with apt-get" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
apt-get install -y -qq --no-install-recommends $missing </dev/null >/dev/null ||
	{ echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
