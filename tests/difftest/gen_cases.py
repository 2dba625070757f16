#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# gen_cases.py - seeded generator of differential test cases for
# tests/difftest/difftest.sh: folded inputs (CPU-like stacks, off-wake chain
# stacks with "--" and "-", differential two-count files, deep stacks, names
# with markup characters, spaces and unicode, fractional/huge/zero counts,
# invalid lines, the spec's quirks) with one to three option lines each,
# drawn from every option and palette.  Writes CASE.folded, CASE.opts and
# sometimes CASE.palette.map / CASE.nameattr into --out (format: svgcmp.py).
#
# Usage: gen_cases.py --seed N --count N --out DIR
import argparse
import os
import random
import shlex
import zlib

KERNEL = ['entry_SYSCALL_64_after_hwframe', 'do_syscall_64', '__x64_sys_read',
          '__x64_sys_futex', 'schedule', '__schedule', 'do_futex', 'futex_wait',
          'vfs_read', 'ksys_read', 'pipe_read', 'ep_poll', 'do_epoll_wait',
          'try_to_wake_up', 'wake_up_q', 'futex_wake', 'pollwake', 'tcp_recvmsg',
          'sock_def_readable', 'io_schedule', 'finish_task_switch.isra.0']
USER = ['main', '__libc_start_main', '_start', 'start_thread', 'clone3',
        'std::vector<int, std::allocator<int> >::push_back(int const&)',
        'std::__1::basic_string<char>::append(char const*, unsigned long)',
        '<tokio::runtime::task::Harness<T,S>>::poll', 'hyper::proto::h1::Conn::poll_read',
        'core::ops::function::FnOnce::call_once{{vtable.shim}}', 'malloc', 'free',
        'libc.so.6`malloc', 'libpthread.so.0`pthread_cond_wait', 'a`b`c', '`lead',
        'pthread_cond_wait@@GLIBC_2.3.2', '[unknown]', 'memcpy', 'operator new(unsigned long)']
JAVA = ['java/util/HashMap.get_[j]', 'Ljava/lang/Thread;.run', 'org/apache/Foo.bar_[j]',
        'com/example/App.main_[j]', 'sun/misc/Unsafe.park', 'io/netty/Loop.run_[i]',
        'jdk/internal/Misc.x', 'net/x/Y.z', 'Interpreter_[i]', 'a:::b', 'JavaCalls::call']
JS = ['./app.js:10_[j]', '/srv/a/b.js:3', 'node::Start', 'v8::internal::Invoke', 'LazyCompile:*foo x.js:1',
      ' ', 'c:1', 'Builtin:Call_[j]', 'uv_run_[k]', '/x/y_[j]']
PERL = ['Perl_pp_entersub', 'main::foo', 'foo.pl', 'perl_run', 'Mod::x', 'S_regmatch', 'x.plx']
KANN = ['do_page_fault_[k]', 'sys_read_[k]', 'x_[k]_[k]', 'a_[k]b', 'std::mutex::lock_[k]']
SPECIAL = ['a<b>', 'x&y', '"quoted"', "it's", '<script>alert(1)</script>', '&amp;', ']]>',
           'a b c', ' lead', 'trail ', '  ', 'tab\tname', '\u5927\u962a\u5e02', '\u6771\u4eac',
           '\U0001F600\U0001F525', 'caf\u00e9', 'e\u0301', '\u05e9\u05dc\u05d5\u05dd', 'nb\u00a0sp',
           '\u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d\u5341' * 4,
           'x' * 200, 'looks like 12', '-', '--', '_[w]', 'q;'[:1], 'b2', 'b', 'b ', 'b;c'[:1]]
COMMS = ['sshd', 'bash', 'nginx', 'java', 'kworker/0:1', 'postgres', 'redis-server', 'a b']


def mix(a, b):
    """A stable hash of two integers (Python's hash() is salted for str)."""
    return zlib.crc32(('%d:%d' % (a, b)).encode())


def stack_tree(rng, vocab, depth, fan=3, root=0):
    """A walk down an implicit tree: frames share prefixes."""
    out, node = [], root
    for _ in range(depth):
        node = mix(node, rng.randrange(fan) if rng.random() < 0.6 else 0)
        out.append(vocab[node % len(vocab)])
    return out


def count(rng, kind='int'):
    r = rng.random()
    if kind == 'int' or r < 0.6:
        return str(rng.choice([1, 2, 3, 5, 10, 100]) * rng.randrange(1, 1000))
    if r < 0.75:
        return rng.choice(['%d.%d' % (rng.randrange(100), rng.randrange(1000)), '%d.' % rng.randrange(50),
                           '0.1', '0.2', '0.3', '1.5', '2.5', '0.000001'])
    if r < 0.85:
        return rng.choice(['9007199254740993', '9007199254740992', '4611686018427387904',
                           '9223372036854775807', '9223372036854775808', '18446744073709551615',
                           '18446744073709551000', '12345678901234567890', '99999999999999999999'])
    return rng.choice(['0', '0', '1'])


def gen_cpu(rng, n, vocab, kind='int'):
    lines = []
    for _ in range(n):
        d = rng.randrange(1, 25)
        lines.append(';'.join(stack_tree(rng, vocab, d, root=rng.randrange(3))) + ' ' + count(rng, kind))
    return lines


def gen_chain(rng, n):
    lines = []
    for _ in range(n):
        c = rng.choice(COMMS)
        st = [c] + stack_tree(rng, USER, rng.randrange(0, 6), root=zlib.crc32(c.encode()))
        if rng.random() < 0.9:
            st.append('-')
        k = stack_tree(rng, KERNEL, rng.randrange(1, 8), root=7)
        st += k
        r = rng.random()
        if r < 0.85:
            st.append('--')
            st += stack_tree(rng, KERNEL, rng.randrange(1, 6), root=zlib.crc32(k[-1].encode()))
            if rng.random() < 0.8:
                st.append('-')
                st += stack_tree(rng, USER, rng.randrange(0, 4), root=11)
            st.append(rng.choice(COMMS))
            if rng.random() < 0.05:
                st += ['--', 'again']
        elif r < 0.9:
            st.append('--')		# ends in --
        lines.append(';'.join(st) + ' ' + count(rng))
    return lines


def gen_diff(rng, n, vocab):
    lines = []
    for _ in range(n):
        st = ';'.join(stack_tree(rng, vocab, rng.randrange(1, 10), root=rng.randrange(2)))
        if rng.random() < 0.85:
            lines.append('%s %s %s' % (st, count(rng), count(rng)))
        else:
            lines.append('%s %s' % (st, count(rng)))
    # repeated identical stacks with different deltas
    if lines and rng.random() < 0.5:
        lines.append(lines[0].rsplit(' ', 2)[0] + ' %d %d' % (rng.randrange(100), rng.randrange(100)))
    return lines


def gen_deep(rng):
    base = stack_tree(rng, USER + KERNEL + SPECIAL[:10], 1000, fan=1)
    lines = [';'.join(base) + ' 50']
    for _ in range(rng.randrange(1, 6)):
        cut = rng.randrange(1, 1000)
        lines.append(';'.join(base[:cut] + stack_tree(rng, KERNEL, rng.randrange(1, 1000 - cut + 2), root=cut))
                     + ' ' + count(rng))
    lines.append('shallow;stack ' + count(rng))
    return lines


def gen_invalid(rng, lines):
    bad = ['a;b -5', 'a;b +7', 'a;b 1e3', 'a;b .5', 'a;b 5,000', 'a;b 0x10', 'a;b 5 ', 'a;b5', '',
           'no count', 'a;b\t\t9', 'a;b\u00a06', 'a;b\u20027', 'a;b\x1c5', 'a;b\x0b4', 'a;b\x0c3',
           ' 70', ';x 5', 'e;trail; 4', ';;; 2', 'a;;b 3', 'q;b 5', 'q;b2 3', 'q;b;c 1',
           'f;looks like 12 8', 'a;b  5', 'x 1 2 3', 'x;y 4 5 ', '12', ' ']
    for _ in range(rng.randrange(1, 10)):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(bad))
    return lines


STR_PLAIN = ['T', 'My graph', 'off-CPU time', 'ms', 'us', 'Function:', 'Courier New', 'monospace']
STR_SPECIAL = ['a<b>&c', '"x"', "it's", 'A & B', '<i>x</i>', 'caf\u00e9 \u5927', '\U0001F525']


def rand_opts(rng, kind):
    o = []
    pal = ['hot', 'mem', 'io', 'wakeup', 'chain', 'java', 'js', 'perl', 'red', 'green', 'blue',
           'aqua', 'yellow', 'purple', 'orange', 'nosuch', 'Hot']
    if kind == 'chain' and rng.random() < 0.7:
        o.append(rng.choice(['--colors=chain', '--colors chain', '--color=chain', '-colors=chain']))
    elif rng.random() < 0.6:
        o.append('--colors=' + rng.choice(pal))
    pool = [
        lambda: '--hash', lambda: '--has', lambda: '--cp', lambda: '--reverse', lambda: '--inverted',
        lambda: '--inv', lambda: '--flamechart', lambda: '--negate',
        lambda: '--minwidth=' + rng.choice(['0', '0.5', '1', '5', '20', '0.1%', '1%', '10%', '1.2.3']),
        lambda: '--total=' + rng.choice(['1000', '10000000', '1', '0', '18446744073709551615']),
        lambda: '--factor=' + rng.choice(['2', '0.5', '1e3', '1000000', '0.001']),
        lambda: '--fontsize=' + rng.choice(['12.0', '1e1', '11.5', '9', '24']),
        lambda: '--fontwidth=' + rng.choice(['0.5', '0.7', '1']),
        lambda: '--width=' + rng.choice(['800', '300', '1900', '+1000', '01000', '100']),
        lambda: '--height=' + rng.choice(['24', '11', '1', '32']),
        lambda: '--encoding=' + rng.choice(['ISO-8859-1', 'utf-8']),
        lambda: '--bgcolors=' + rng.choice(['yellow', 'blue', 'green', 'grey', '#123abc', '#ffffff']),
        lambda: '--title=' + shlex.quote(rng.choice(STR_PLAIN + STR_SPECIAL)),
        lambda: '--subtitle=' + shlex.quote(rng.choice(STR_PLAIN + STR_SPECIAL)),
        lambda: '--countname=' + shlex.quote(rng.choice(STR_PLAIN + STR_SPECIAL)),
        lambda: '--nametype=' + shlex.quote(rng.choice(STR_PLAIN + STR_SPECIAL)),
        lambda: '--fonttype=' + shlex.quote(rng.choice(STR_PLAIN + STR_SPECIAL)),
        lambda: '--notes=' + shlex.quote(rng.choice(['plain', 'a&b', 'x--y', 'a<b'])),
        lambda: '-title ' + shlex.quote(rng.choice(STR_PLAIN)),
    ]
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
        o.append(rng.choice(pool)())
    if kind == 'diff' and rng.random() < 0.5:
        o.append('--negate')
    return ' '.join(o)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=400)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    kinds = ['cpu', 'cpu', 'chain', 'chain', 'diff', 'deep', 'names', 'java', 'js', 'perl',
             'counts', 'invalid', 'flamechart']
    for i in range(a.count):
        kind = rng.choice(kinds)
        n = rng.randrange(1, 120)
        if kind == 'cpu':
            lines = gen_cpu(rng, n, USER + KERNEL + KANN)
        elif kind == 'chain':
            lines = gen_chain(rng, n)
        elif kind == 'diff':
            lines = gen_diff(rng, n, USER + KERNEL + SPECIAL)
        elif kind == 'deep':
            lines = gen_deep(rng)
        elif kind == 'names':
            lines = gen_cpu(rng, n, SPECIAL + USER)
        elif kind == 'java':
            lines = gen_cpu(rng, n, JAVA + KANN + USER[:5])
        elif kind == 'js':
            lines = gen_cpu(rng, n, JS + KANN + USER[:5])
        elif kind == 'perl':
            lines = gen_cpu(rng, n, PERL + KANN + USER[:5])
        elif kind == 'counts':
            lines = gen_cpu(rng, n, USER + KERNEL, kind='mixed')
        elif kind == 'invalid':
            lines = gen_invalid(rng, gen_cpu(rng, n, USER + KERNEL))
        else:
            lines = gen_cpu(rng, n, USER[:8])
        if kind not in ('invalid',) and rng.random() < 0.15:
            lines = gen_invalid(rng, lines)
        rng.shuffle(lines)
        name = 'g%04d_%s' % (i, kind)
        base = os.path.join(a.out, name)
        with open(base + '.folded', 'w', encoding='utf-8', newline='') as f:
            f.write('\n'.join(lines) + ('\n' if rng.random() < 0.95 else ''))
        optlines = [rand_opts(rng, kind) for _ in range(rng.randrange(1, 4))]
        if kind == 'flamechart':
            optlines[0] = '--flamechart ' + optlines[0]
        with open(base + '.opts', 'w', encoding='utf-8') as f:
            f.write('\n'.join(l or '@DEFAULT@' for l in optlines) + '\n')
        if any('--cp' in l for l in optlines) and rng.random() < 0.5:
            names = sorted({fr for l in lines for fr in l.rsplit(' ', 1)[0].split(';')})
            with open(base + '.palette.map', 'w', encoding='utf-8') as f:
                for fr in rng.sample(names, min(len(names), 5)):
                    f.write('%s->rgb(%d,%d,%d)\n' % (fr, rng.randrange(256), rng.randrange(256),
                                                     rng.randrange(256)))
    return 0


if __name__ == '__main__':
    main()
