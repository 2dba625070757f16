#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# svgcmp.py - differential testing of `offwake-svg render` against the real
# flamegraph.pl (python3 + stdlib only).  Used by tests/difftest/difftest.sh.
#
#   svgcmp.py run [--self] REF_CMD OURS_CMD CASE_PREFIX...
#       run every option line of each case (CASE_PREFIX.opts, input
#       CASE_PREFIX.folded) with both programs and print "PASS: case" or
#       "FAIL: case: reason" (plus a readable diff) per option line.
#   svgcmp.py cmp EXPECTED.svg OURS.svg [OPTION...]
#       compare two SVG files made with the given options.
#
# The comparison allows only the differences spec section 15 documents:
# frame emission order (frames are compared as a multiset), the <script>
# content, escaped user strings (title, subtitle, countname, nametype,
# fonttype, notes), grey waker-side "-" frames with --colors=chain, U+FFFD
# for invalid UTF-8 and XML-invalid control characters, CRLF input accepted,
# --notes with < or > accepted, --help on stdout with exit 0, and each
# frame's exact extent (fg:x, fg:w, namespace xmlns:fg); and, unless
# DIFFTEST_STRICT=1, those the README adds (see DOCUMENTED below).  Everything
# else (XML declaration, DOCTYPE, svg attributes, comments, defs, style,
# fixed texts, frames, palette.map, exit status) must match; whitespace
# between tags and attribute order are not significant.
#
# Option lines (one run each; blank lines and '#' comment lines are skipped,
# @DEFAULT@ is a run without options) are split like a
# shell would (shlex).  Placeholders: @IN@ is replaced by the input file
# name (CASE.folded, copied into the run directory); without @IN@ the input
# file is appended as the last argument.  @STDIN@ feeds the input on stdin
# instead, @NONE@ gives no file and an empty stdin.  Every file CASE.* is
# copied into the run directory under its own name, CASE.palette.map as
# palette.map (for --cp).
import codecs
import collections
import html
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.parsers.expat

# ---- flamegraph.pl's options (Getopt::Long, default configuration) --------
OPTSPEC = {
    'fonttype': 's', 'width': 'i', 'height': 'i', 'encoding': 's',
    'fontsize': 'f', 'fontwidth': 'f', 'minwidth': 's', 'title': 's',
    'subtitle': 's', 'nametype': 's', 'countname': 's', 'nameattr': 's',
    'total': 's', 'factor': 'f', 'colors': 's', 'bgcolors': 's', 'hash': 'b',
    'random': 'b', 'cp': 'b', 'reverse': 'b', 'inverted': 'b',
    'flamechart': 'b', 'negate': 'b', 'notes': 's', 'help': 'b',
}
RAW_STRINGS = ('title', 'subtitle', 'countname', 'nametype', 'fonttype', 'notes')
SPECIAL = re.compile(r'[&<>"\']')


def resolve_name(word):
    """Map an option word (without dashes) to its name, or None."""
    w = word.lower()	# Getopt::Long ignores case by default
    if w in OPTSPEC:
        return w
    cands = [n for n in OPTSPEC if n.startswith(w)]
    return cands[0] if len(cands) == 1 else None


def parse_opts(argv):
    """Approximate Getopt::Long: returns (opts, occurrences, files, error).
    occurrences: list of (name, index of the value in argv or None, value)."""
    opts, occ, files, err = {}, [], [], False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--':
            files.extend(argv[i + 1:])
            break
        if a.startswith('-') and a != '-':
            body = a.lstrip('-')
            name, eq, val = body.partition('=')
            n = resolve_name(name)
            if n is None:
                err = True
                i += 1
                continue
            if OPTSPEC[n] == 'b':
                if eq:
                    err = True
                opts[n] = True
                occ.append((n, None, True))
            elif eq:
                opts[n] = val
                occ.append((n, i, val))
            elif i + 1 < len(argv):
                i += 1
                opts[n] = argv[i]
                occ.append((n, i, argv[i]))
            else:
                err = True
        else:
            files.append(a)
        i += 1
    return opts, occ, files, err


# ---- tokenising an SVG (tolerant: flamegraph.pl's output may be ill-formed) --
BAD_XML_CHARS = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]')
ATTR = re.compile(r'\s*([A-Za-z_:][-\w:.]*)\s*=\s*("[^"]*"|\'[^\']*\')')


# Our frames' exact extents (fg:x, fg:w in their own namespace, for unfold),
# which flamegraph.pl does not write and nothing draws.
EXACT_EXTENT = ('xmlns:fg', 'fg:x', 'fg:w')


def canon_attrs(s):
    """Attributes as a sorted tuple; raw text when they do not parse."""
    s = s.strip().rstrip('/').strip()
    out, pos = [], 0
    while pos < len(s):
        m = ATTR.match(s, pos)
        if not m:
            return ('RAW', ' '.join(s.split()))
        if m.group(1) not in EXACT_EXTENT:
            out.append((m.group(1), m.group(2)[1:-1]))
        pos = m.end()
    return tuple(sorted(out))


def unesc(s):
    return html.unescape(s)


FRAME = re.compile(
    r'<(g|a)\b([^>]*)>\s*<title>(.*?)</title>\s*<rect\b(.*?)/>\s*'
    r'<text\b([^>]*)>(.*?)</text>\s*</(?:g|a)>', re.S)


class Doc:
    def __init__(self, text):
        self.text = text
        self.ok = True
        self.head, self.frames, self.tail = [], [], []
        self.title = self.subtitle = None
        t = re.sub(r'<script\b.*?</script>', '<script/>', text, count=1, flags=re.S)
        # the raw title/subtitle (may hold markup in flamegraph.pl's output)
        for key in ('title', 'subtitle'):
            follow = r'<text id="(?:subtitle|details)"' if key == 'title' else r'<text id="details"'
            m = re.search(r'(<text id="%s"[^>]*>)(.*?)</text>(\s*%s)' % (key, follow), t, re.S)
            if m:
                setattr(self, key, (canon_attrs(m.group(1)[5:-1]), m.group(2)))
                t = t[:m.start()] + '<%s-placeholder/>' % key + t[m.end(2) + 7:]
        fs = t.find('<g id="frames">')
        if fs >= 0:
            end = t.rfind('</svg>')
            fe = t.rfind('</g>', fs, end if end >= 0 else len(t))
            head, body, tail = t[:fs + len('<g id="frames">')], t[fs + 15:fe], t[fe:]
        else:
            head, body, tail = t, '', ''
        self.head = tokens(head)
        self.tail = tokens(tail)
        pos = 0
        for m in FRAME.finditer(body):
            if body[pos:m.start()].strip():
                self.frames.append(('UNPARSED', body[pos:m.start()].strip()[:200]))
            pos = m.end()
            self.frames.append(dict(
                group=m.group(1), gattrs=canon_attrs(m.group(2)),
                title=m.group(3), rect=dict(canon_attrs(m.group(4)))
                if canon_attrs(m.group(4))[:1] != ('RAW',) else {'RAW': m.group(4)},
                tattrs=canon_attrs(m.group(5)), label=m.group(6)))
        if body[pos:].strip():
            self.frames.append(('UNPARSED', body[pos:].strip()[:200]))


TOKEN = re.compile(r'<!--.*?-->|<\?.*?\?>|<!DOCTYPE[^>]*>|<style\b[^>]*>.*?</style>|<[^>]*>|[^<]+', re.S)


def tokens(s):
    out = []
    for m in TOKEN.finditer(s):
        tok = m.group(0)
        if tok.startswith('<!--'):
            out.append(('comment', ' '.join(tok[4:-3].split())))
        elif tok.startswith('<?'):
            out.append(('pi', canon_attrs(tok[5:-2])))
        elif tok.startswith('<!DOCTYPE'):
            out.append(('doctype', ' '.join(tok.split())))
        elif tok.startswith('<style'):
            i = tok.index('>')
            out.append(('style', canon_attrs(tok[6:i]), ' '.join(tok[i + 1:-8].split())))
        elif tok.startswith('</'):
            out.append(('end', tok[2:-1].strip()))
        elif tok.startswith('<'):
            m2 = re.match(r'<([^\s/>]+)(.*?)(/?)>$', tok, re.S)
            if m2:
                out.append(('tag', m2.group(1), canon_attrs(m2.group(2)), m2.group(3)))
            else:
                out.append(('tag?', tok))
        else:
            if tok.strip():
                out.append(('text', tok.strip()))
    return out


# ---- comparison --------------------------------------------------------------
class Ctx:
    def __init__(self, opts, self_mode=False):
        self.opts = opts
        self.self_mode = self_mode
        self.special = {k: bool(SPECIAL.search(opts.get(k, '') or '')) for k in RAW_STRINGS}
        self.notes_loose = bool(re.search(r'[&<>"\']|--', opts.get('notes', '') or ''))
        self.chain = opts.get('colors') == 'chain'
        self.random = bool(opts.get('random')) and not opts.get('hash')
        # known differences the lead may accept (DIFFTEST_ALLOW=a,b):
        # mojibake: flamegraph.pl UTF-8-encodes non-ASCII option strings twice
        self.allow = set(filter(None, os.environ.get('DIFFTEST_ALLOW', '').split(',')))
        if os.environ.get('DIFFTEST_STRICT') != '1':
            self.allow |= DOCUMENTED
        self.moj = {}
        for k in RAW_STRINGS:
            v = opts.get(k) or ''
            if any(ord(c) > 127 for c in v):
                self.moj[k] = (mojibake(v), v)

    def unmoj(self, key, text):
        """Undo flamegraph.pl's double encoding of option KEY in expected text."""
        if key in self.moj and 'mojibake' in self.allow and not self.self_mode:
            return text.replace(*self.moj[key])
        return text


# Differences the README documents beyond spec section 15 (accepted unless
# DIFFTEST_STRICT=1): non-ASCII option text written once, not double-encoded;
# sizes that cannot give a drawing refused with 255; --nameattr read errors
# exit 255 (flamegraph.pl exits with errno).
DOCUMENTED = {'mojibake', 'sizes', 'nameattr-exit'}


def perl_num(v):
    m = re.match(r'\s*([-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))', v or '')
    return float(m.group(1)) if m else 0.0


def bad_size(opts):
    """True when the options ask for a size the README says we refuse."""
    w = perl_num(opts.get('width', '1200'))
    h = perl_num(opts.get('height', '16'))
    return (not 21 <= w <= 10000000 or not 1 <= h <= 100000
            or perl_num(opts.get('fontsize', '12')) <= 0 or perl_num(opts.get('fontwidth', '0.59')) <= 0)


def mojibake(s):
    """s as flamegraph.pl prints a non-ASCII option value: its UTF-8 bytes
    taken as Latin-1 and encoded again."""
    return s.encode('utf-8', 'surrogateescape').decode('latin-1')


def fmt_frame(f):
    if isinstance(f, tuple):
        return 'unparsed: %r' % (f[1],)
    r = f['rect']
    return ('<%s%s> title=%r x=%s y=%s w=%s h=%s fill=%s label=%r text=%s' % (
        f['group'], '' if not f['gattrs'] else ' ' + str(f['gattrs']), f['title'],
        r.get('x'), r.get('y'), r.get('width'), r.get('height'), r.get('fill'),
        f['label'], dict(f['tattrs']) if f['tattrs'][:1] != ('RAW',) else f['tattrs']))


def frame_key(f, ctx, expected):
    if isinstance(f, tuple):
        return f
    title = f['title']
    label = f['label']
    rect = dict(f['rect'])
    if expected:
        title = ctx.unmoj('countname', title)
    if ctx.special['countname'] and not ctx.self_mode:
        title = unesc(title)
    if ctx.random:
        rect.pop('fill', None)
    if expected and ctx.chain and not ctx.self_mode and unesc(title).startswith('- ('):
        rect['fill'] = 'rgb(200,200,200)'	# spec 15.2: waker-side "-" is grey
    return (f['group'], f['gattrs'], title, tuple(sorted(rect.items())), f['tattrs'], label)


def frame_diff(a, b):
    """Readable field differences between two frames (expected a, ours b)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return 'expected %s\n      got %s' % (fmt_frame(a), fmt_frame(b))
    out = []
    for k in ('group', 'gattrs', 'title', 'label', 'tattrs'):
        if a[k] != b[k]:
            out.append('%s: expected %r, got %r' % (k, a[k], b[k]))
    for k in sorted(set(a['rect']) | set(b['rect'])):
        if a['rect'].get(k) != b['rect'].get(k):
            out.append('rect %s: expected %r, got %r' % (k, a['rect'].get(k), b['rect'].get(k)))
    return '; '.join(out) if out else 'identical (but keyed differently)'


def compare_docs(exp, ours, ctx):
    """Return a list of problems (strings); empty when the documents match."""
    probs = []
    # head
    eh = [t for t in exp.head]
    oh = [t for t in ours.head]

    def norm_head(toks, expected):
        out = []
        for t in toks:
            if t[0] == 'comment' and t[1].startswith('NOTES:'):
                if ctx.notes_loose and not ctx.self_mode:
                    t = ('comment', 'NOTES: (loose)')
                elif expected:
                    t = ('comment', ctx.unmoj('notes', t[1]))
            if t[0] == 'style':
                css = t[2]
                if expected:
                    css = ctx.unmoj('fonttype', css)
                if ctx.special['fonttype'] and not ctx.self_mode:
                    css = unesc(css)	# 15.4: escaped for XML
                    if not expected:	# ... and for CSS (backslash escapes)
                        css = re.sub(r'\\(.)', r'\1', css)
                t = ('style', t[1], css)
            out.append(t)
        return out
    eh, oh = norm_head(eh, True), norm_head(oh, False)
    if eh != oh:
        i = 0
        while i < min(len(eh), len(oh)) and eh[i] == oh[i]:
            i += 1
        probs.append('document head differs at token %d:\n      expected %s\n      got      %s' % (
            i, eh[i] if i < len(eh) else '(end)', oh[i] if i < len(oh) else '(end)'))
    for key in ('title', 'subtitle'):
        e, o = getattr(exp, key), getattr(ours, key)
        if (e is None) != (o is None):
            probs.append('%s element: expected %s, got %s' % (key, 'present' if e else 'absent',
                                                              'present' if o else 'absent'))
            continue
        if e is None:
            continue
        if e[0] != o[0]:
            probs.append('%s attributes: expected %s, got %s' % (key, e[0], o[0]))
        et = ctx.unmoj(key, e[1])
        if et != o[1] and not (ctx.special[key] and not ctx.self_mode and unesc(o[1]) == et):
            why = ''
            if key in ctx.moj and mojibake(unesc(o[1])) == et:
                why = ' [mojibake: flamegraph.pl encodes non-ASCII option text twice]'
            probs.append('%s text: expected %r, got %r%s' % (key, e[1], o[1], why))
    if exp.tail != ours.tail:
        probs.append('document tail differs: expected %s, got %s' % (exp.tail[:6], ours.tail[:6]))
    # frames
    ek = collections.Counter(frame_key(f, ctx, True) for f in exp.frames)
    ok = collections.Counter(frame_key(f, ctx, False) for f in ours.frames)
    if ek != ok:
        emap = {frame_key(f, ctx, True): f for f in exp.frames}
        omap = {frame_key(f, ctx, False): f for f in ours.frames}
        missing = list((ek - ok).elements())
        extra = list((ok - ek).elements())
        probs.append('frames differ: %d expected, %d got; %d expected frames not matched, %d of ours not matched'
                     % (len(exp.frames), len(ours.frames), len(missing), len(extra)))
        used = set()
        shown = 0
        for mk in missing:
            if shown >= 6:
                break
            ef = emap[mk]
            best = None
            for j, xk in enumerate(extra):
                if j in used:
                    continue
                of = omap[xk]
                if isinstance(ef, tuple) or isinstance(of, tuple):
                    continue
                score = (unesc(ef['title']).split(' (')[0] == unesc(of['title']).split(' (')[0],
                         ef['rect'].get('y') == of['rect'].get('y'),
                         ef['rect'].get('x') == of['rect'].get('x'))
                if best is None or score > best[0]:
                    best = (score, j)
            if best is not None and any(best[0]):
                used.add(best[1])
                probs.append('  frame %s:\n      %s' % (fmt_frame(ef), frame_diff(ef, omap[extra[best[1]]])))
            else:
                probs.append('  missing in ours: %s' % fmt_frame(ef))
            shown += 1
        for j, xk in enumerate(extra):
            if shown >= 10:
                break
            if j not in used:
                probs.append('  extra in ours: %s' % fmt_frame(omap[xk]))
                shown += 1
    return probs


def well_formed(data):
    p = xml.parsers.expat.ParserCreate('UTF-8')	# the output is UTF-8 whatever --encoding says
    try:
        p.Parse(data, True)
    except (xml.parsers.expat.ExpatError, ValueError, LookupError) as e:
        return 'not well-formed XML: %s' % e
    return None


def decode(b):
    return BAD_XML_CHARS.sub('\ufffd', b.decode('utf-8', 'surrogateescape'))


# ---- running a case ----------------------------------------------------------
def _per_byte(exc):
    return ('\ufffd', exc.start + 1)


codecs.register_error('fffd_per_byte', _per_byte)


def sanitize_input(data):
    """The input flamegraph.pl gets for our improvements 15.3: invalid UTF-8
    bytes replaced with U+FFFD (one per byte), a \\r before \\n removed."""
    text = data.decode('utf-8', 'fffd_per_byte')
    text = re.sub('\r\n', '\n', text)
    if text.endswith('\r'):
        text = text[:-1]
    return text.encode('utf-8')


def run(cmd, args, cwd, stdin_data):
    try:
        p = subprocess.run(cmd + args, cwd=cwd, input=stdin_data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=300,
                           env=dict(os.environ, LC_ALL='C'))
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b'', b''


def run_case(prefix, line, ref_cmd, ours_cmd, self_mode):
    """Run one option line; return (ok, reason, details)."""
    casedir, name = os.path.split(prefix)
    argv = shlex.split(line)
    opts, occ, files, err = parse_opts([a for a in argv if a not in ('@IN@', '@STDIN@', '@NONE@')])
    infile = name + '.folded'
    have_in = os.path.exists(prefix + '.folded')
    stdin_mode = '@STDIN@' in argv
    none_mode = '@NONE@' in argv
    if '@IN@' in argv:
        argv = [infile if a == '@IN@' else a for a in argv]
    elif not stdin_mode and not none_mode and have_in:
        argv = argv + [infile]
    argv = [a for a in argv if a not in ('@STDIN@', '@NONE@')]
    ref_argv = list(argv)
    improved_notes = False
    if not self_mode:
        # 15.4: --notes with < or > is escaped by us, refused by flamegraph.pl
        for n, idx, val in occ:
            if n == 'notes' and idx is not None and re.search('[<>]', val):
                improved_notes = True
                ref_argv[idx] = ref_argv[idx].replace('<', '').replace('>', '')
    with tempfile.TemporaryDirectory(prefix='difftest.') as tmp:
        dirs = {}
        raw_in = open(prefix + '.folded', 'rb').read() if have_in else b''
        for who in ('ref', 'ours'):
            d = os.path.join(tmp, who)
            os.mkdir(d)
            for f in os.listdir(casedir or '.'):
                if f.startswith(name + '.'):
                    dst = 'palette.map' if f == name + '.palette.map' else f
                    shutil.copy(os.path.join(casedir, f), os.path.join(d, dst))
            dirs[who] = d
        ref_in = raw_in if self_mode else sanitize_input(raw_in)
        if have_in and ref_in != raw_in:
            with open(os.path.join(dirs['ref'], infile), 'wb') as fh:
                fh.write(ref_in)
        rs, rout, rerr = run(ref_cmd, ref_argv, dirs['ref'], ref_in if stdin_mode else b'')
        os_, oout, oerr = run(ours_cmd, argv, dirs['ours'], raw_in if stdin_mode else b'')
        detail = []
        ctx = Ctx(opts, self_mode)
        if os_ == 'timeout' or (isinstance(os_, int) and os_ < 0):
            return False, 'ours crashed or timed out (status %s)' % os_, oerr.decode('utf-8', 'replace')[-500:]
        # 15.5: --help goes to stdout with exit 0
        if not self_mode and opts.get('help') and not err and rs == 255 and os_ == 0:
            if not oout.strip():
                return False, '--help: exit 0 but nothing on stdout', ''
            return True, '', ''
        if rs != os_ and os_ == 255 and not err and not self_mode:
            if 'sizes' in ctx.allow and bad_size(opts):
                return True, '', ''
            if 'nameattr-exit' in ctx.allow and re.search(rb"Can't read |Invalid format in ", rerr):
                return True, '', ''
        if rs != os_:
            return False, 'exit status: expected %s, got %s' % (rs, os_), (
                'flamegraph.pl stderr: %s\n      ours stderr: %s' % (
                    rerr.decode('utf-8', 'replace').strip()[:300],
                    oerr.decode('utf-8', 'replace').strip()[:300]))
        if rs == 255:
            if oout:
                return False, 'exit 255 but ours wrote %d bytes to stdout' % len(oout), ''
            return True, '', ''
        if not self_mode:
            wf = well_formed(oout)
            if wf:
                return False, 'ours: ' + wf, ''
        probs = compare_docs(Doc(decode(rout)), Doc(decode(oout)), ctx)
        # the warnings spec section 11 lists (stderr; wording may carry a prefix)
        rtxt, otxt = rerr.decode('utf-8', 'replace'), oerr.decode('utf-8', 'replace')
        for pat in (r'Ignored \d+ lines with invalid format', r'Stack count is low \([^)]*\)',
                    r'ERROR: No stack counts found'):
            want = re.findall(pat, rtxt)
            got = re.findall(pat, otxt)
            if want != got:
                probs.append('stderr warning: expected %r, got %r' % (want, got))
        # --cp: palette.map written back
        if opts.get('cp') and not ctx.random:
            pm = []
            for who in ('ref', 'ours'):
                p = os.path.join(dirs[who], 'palette.map')
                t = open(p, 'rb').read() if os.path.exists(p) else None
                if t is not None and ctx.chain and not self_mode:
                    t = b''.join(l for l in t.splitlines(True) if not l.startswith(b'-_[w]->'))
                pm.append(t)
            if pm[0] != pm[1]:
                el = (pm[0] or b'').splitlines()
                ol = (pm[1] or b'').splitlines()
                dl = [l for l in el if l not in ol][:3]
                dr = [l for l in ol if l not in el][:3]
                probs.append('palette.map differs (%s vs %s lines): expected-only %r, ours-only %r' % (
                    len(el) if pm[0] is not None else 'no file', len(ol) if pm[1] is not None else 'no file',
                    dl, dr))
        if probs:
            return False, probs[0].split('\n')[0], '\n'.join(probs)
        return True, '', ''


def case_lines(prefix):
    """The option lines of a case: blank and '#' lines are skipped; a line
    @DEFAULT@ is a run with no options; no .opts file means one such run."""
    p = prefix + '.opts'
    if not os.path.exists(p):
        return ['']
    out = []
    for l in open(p, encoding='utf-8'):
        l = l.rstrip('\n')
        if l.strip() == '' or l.strip().startswith('#'):
            continue
        out.append('' if l.strip() == '@DEFAULT@' else l)
    return out or ['']


def main():
    args = sys.argv[1:]
    if args and args[0] == 'cmp':
        exp = decode(open(args[1], 'rb').read())
        ours_b = open(args[2], 'rb').read()
        opts = parse_opts(args[3:])[0]
        probs = compare_docs(Doc(exp), Doc(decode(ours_b)), Ctx(opts))
        wf = well_formed(ours_b)
        if wf:
            probs.insert(0, 'ours: ' + wf)
        print('\n'.join(probs) if probs else 'same')
        return 1 if probs else 0
    if args and args[0] == 'run':
        args = args[1:]
        self_mode = False
        if args and args[0] == '--self':
            self_mode = True
            args = args[1:]
        ref_cmd, ours_cmd = shlex.split(args[0]), shlex.split(args[1])
        bad = 0
        for prefix in args[2:]:
            lines = case_lines(prefix)
            for i, line in enumerate(lines):
                cname = os.path.basename(prefix) + ('' if len(lines) == 1 else '.%d' % (i + 1))
                try:
                    ok, reason, detail = run_case(prefix, line, ref_cmd, ours_cmd, self_mode)
                except Exception as e:	# a harness bug must not hide the other cases
                    ok, reason, detail = False, 'harness error: %r' % (e,), ''
                if ok:
                    print('PASS: %s' % cname)
                else:
                    bad += 1
                    print('FAIL: %s: %s' % (cname, reason))
                    print('    options: %s' % line)
                    if detail:
                        print('    ' + detail.replace('\n', '\n    '))
                sys.stdout.flush()
        return 1 if bad else 0
    print(__doc__ if __doc__ else 'usage: svgcmp.py run|cmp ...', file=sys.stderr)
    print('usage: svgcmp.py run [--self] REF_CMD OURS_CMD CASE_PREFIX... | cmp EXP OURS [OPTS]',
          file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
