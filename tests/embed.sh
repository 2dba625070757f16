#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# embed.sh - turn data files into C arrays at build time.
#   embed.sh NAME FILE            -> const char NAME[] (NUL-terminated)
#   embed.sh --table NAME FILE... -> a {name, data} table, last entry NULL
set -e
hexdump_c() { od -An -v -tx1 "$1" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; }
if [ "$1" = "--table" ]; then
	name=$2; shift 2
	i=0
	for f in "$@"; do
		echo "static const char d$i[] = {"; hexdump_c "$f"; echo "0};"
		i=$((i+1))
	done
	echo "const struct { const char *name; const char *data; } $name[] = {"
	i=0
	for f in "$@"; do
		echo "	{ \"$(basename "$f")\", d$i },"
		i=$((i+1))
	done
	echo "	{ 0, 0 } };"
else
	echo "const char $1[] = {"; hexdump_c "$2"; echo "0};"
fi
