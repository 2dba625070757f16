# SPDX-License-Identifier: Apache-2.0
# readelf_cmp.awk - checks an unwind table (uwdump's output) against
# readelf's interpretation of the same CFI, row by row; used by
# tests/t_unwind_tables.sh.
#
#   awk -f readelf_cmp.awk phase=1 DUMP phase=2 FRAMES phase=3 INTERP
#
# DUMP: `uwdump FILE`; FRAMES: `readelf --debug-dump=frames FILE` (only
# to tell the PLT's CFA expression from others); INTERP: `readelf
# --debug-dump=frames-interp FILE`.  For each row readelf prints (and for
# an FDE without instructions, its CIE's initial row at the FDE's start)
# the rule we must have there is derived from readelf's columns (CFA,
# ra, rbp, rbx) as src/unwind/native_tables.c documents; our row at that
# address (the last with pc <= address) must say the same.  Each FDE's end that
# no FDE starts at must be "none".  .debug_frame FDEs that start where an
# .eh_frame FDE starts are not ours to follow and are not compared.
# Prints "rows=N fdes=N mismatches=N" and the first mismatches.

# hex strings are keys as they are, without leading zeros (numbers above
# 2^31 are not safe as mawk keys); hex() makes a number to compare
function norm(s) {
	s = tolower(s)
	sub(/^0x/, "", s)
	sub(/^0+/, "", s)
	return s == "" ? "0" : s
}

function hex(s,    i, c, v) {
	v = 0
	s = norm(s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c)
			return -1
		v = v * 16 + c - 1
	}
	return v
}

# our rule at address a: the last row with pc <= a
function ours(a,    lo, hi, mid) {
	lo = 0; hi = n
	while (lo < hi) {
		mid = int((lo + hi) / 2)
		if (pc[mid] <= a) lo = mid + 1; else hi = mid
	}
	return lo ? rule[lo - 1] : "(before the first row)"
}

# the rbx part of a followed row: "-" unchanged, "c-N" saved, "?" lost
function rbxrule(rbx,    r) {
	if (rbx == "" || rbx == "u" || rbx == "s")
		return "-"
	if (rbx !~ /^c-[0-9]+$/)
		return "?"
	r = -(substr(rbx, 2) + 0)
	if (r % 8 || r / 8 < 1 || r / 8 > 30)
		return "?"
	return rbx
}

# a row whose rule we do not follow: rbp c-16 where rbp is saved beside
# the return address (the frame pointer's layout: one frame by rbp there)
function none(rbp) {
	return "none " (rbp == "c-16" ? "c-16" : "-") " -"
}

# the rule readelf's row means, in uwdump's words
function want(cfa, ra, rbp, rbx, sig, plt,    m, r) {
	if (sig)
		return "signal+40 - -"
	if (ra == "u")
		return "end - -"
	if (ra != "c-8")
		return none(rbp)
	if (cfa == "exp")
		return plt ? plt " - " rbxrule(rbx) : "none - -"
	if (cfa !~ /^(rsp|rbp|rbx)[+-][0-9]+$/)
		return none(rbp)
	m = substr(cfa, 4) + 0
	if (m < -32768 || m > 32767) {
		if (substr(cfa, 1, 3) != "rsp" || m % 8 || m / 8 > 32767 || m / 8 < -32768)
			return none(rbp)
	}
	if (rbp == "" || rbp == "u" || rbp == "s")
		return cfa " - " rbxrule(rbx)
	if (rbp !~ /^c[+-][0-9]+$/)
		return none(rbp)
	r = substr(rbp, 2) + 0
	if (r % 8 || r / 8 < -128 || r / 8 > 127 || r == 0)
		return none(rbp)
	return cfa " " rbp " " rbxrule(rbx)
}

function mismatch(a, where, w, o) {
	bad++
	if (bad <= 10)
		printf "mismatch at %s (%s): readelf means '%s', table has '%s'\n", a, where, w, o
}

# a: hex string
function check(a, w,    o) {
	if (sect == ".debug_frame" && (fdelo in ehstart))
		return
	rows++
	o = ours(hex(a))
	if (o != w)
		mismatch(a, sect " FDE " fdelo ".." fdehi, w, o)
}

# the last row of the FDE being read, compared once its address is done
function flush() {
	if (have)
		check(curloc, curwant)
	have = 0
}

function end_fde() {
	flush()
	if (infde && !gotrows)
		check(fdelo, cierow[fdecie])
	if (infde && !(sect == ".debug_frame" && (fdelo in ehstart))) {
		ends[fdehi] = 1
		starts[fdelo] = 1
		fdes++
	}
	infde = 0
}

BEGIN { n = 0 }
phase == 1 && /^#/ { next }
phase == 1 {
	pc[n] = hex($1); rule[n] = $2 " " $3 " " $4; n++
	next
}

phase == 2 && / FDE cie=/ {
	split($NF, p, /[=.]+/); cur = norm(p[2])
	next
}
phase == 2 && /DW_CFA_def_cfa_expression/ {
	if ($0 ~ /DW_OP_breg7 \(rsp\): 8; DW_OP_breg16 \(rip\): 0; DW_OP_lit15; DW_OP_and; DW_OP_lit1[01]; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus\)/)
		pltfde[cur] = ($0 ~ /lit11/) ? "plt11" : "plt10"
	next
}

phase == 3 && /^Contents of the / {
	end_fde()
	sect = $4
	next
}
phase == 3 && / ZERO terminator/ {
	end_fde()
	next
}
phase == 3 && / CIE / {
	end_fde()
	incie = sect $1; ciesig[incie] = ($5 ~ /S/)
	next
}
phase == 3 && / FDE cie=/ {
	end_fde()
	split($NF, p, /[=.]+/)
	fdelo = norm(p[2]); fdehi = norm(p[3])
	split($5, q, "="); fdecie = sect q[2]
	if (sect == ".eh_frame")
		ehstart[fdelo] = 1
	infde = 1; gotrows = 0; incie = ""
	next
}
phase == 3 && /^ +LOC +CFA/ {
	ncol = NF
	for (i = 1; i <= NF; i++)
		col[i] = $i
	next
}
phase == 3 && /^[0-9a-f]+ / && NF == ncol {
	ra = ""; rbp = ""; rbx = ""
	for (i = 3; i <= NF; i++) {
		if (col[i] == "ra") ra = $i
		if (col[i] == "rbp") rbp = $i
		if (col[i] == "rbx") rbx = $i
	}
	if (incie != "") {
		cierow[incie] = want($2, ra, rbp, rbx, ciesig[incie], "")
		incie = ""	# only the initial row
		next
	}
	if (!infde)
		next
	a = norm($1)
	if (hex(a) >= hex(fdehi))
		next	# an empty range at the FDE's end (seen in libLLVM)
	if (have && a != curloc)
		flush()
	curloc = a; have = 1; gotrows = 1
	curwant = want($2, ra, rbp, rbx, ciesig[fdecie], pltfde[fdelo])
	next
}

END {
	end_fde()
	for (e in ends)
		if (!(e in starts) && (o = ours(hex(e))) != "none - -")
			mismatch(e, "the end of an FDE no FDE follows", "none - -", o)
	printf "rows=%d fdes=%d mismatches=%d\n", rows, fdes, bad
}
