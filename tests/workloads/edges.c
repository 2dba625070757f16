/* SPDX-License-Identifier: Apache-2.0 */
/*
 * edges.c - a test workload for the unwinder's edge cases
 * (t_unwind_edges.sh): threads block in read() on a pipe a feeder thread
 * writes a byte to every 20 ms, until the process ends after SECONDS.
 *
 * usage: edges noreturn SECONDS
 *   main() ends with a call to a noreturn loop, and a thread's chain
 *   n1 -> n2 -> n3 is made of noreturn calls: each return address is the
 *   first byte after its caller (the next function, or padding), so a
 *   caller is named only when it is looked up one byte back.
 * usage: edges deep DEPTH SECONDS
 *   main blocks DEPTH calls of deep() deep (build it
 *   -fno-optimize-sibling-calls): past the unwinder's depth limit
 *   (OW_MAX_STACK_DEPTH, 127), the cut must show.
 * usage: edges drap SECONDS
 *   main -> r1 -> r2 -> block_forever, where r2 realigns its stack the
 *   way gcc does for an over-aligned local beside alloca() (DRAP: its
 *   CFA is an expression, *(rbp - 8)): r1 must not be doubled or lost.
 * usage: edges big SECONDS
 *   main -> big1 -> block_forever, big1's frame 300000 bytes (its CFA
 *   rsp + 300016: more than a row's 16-bit offset times 8 held before).
 * usage: edges ctor LIB SECONDS
 *   once the file $EDGE_GO exists, dlopen() LIB, whose constructor
 *   blocks once for 0.8 s
 *   (edgelib.c built -DEDGE_CTOR): its stack is taken while no table of
 *   it is in place yet.
 * usage: edges libs DIR SECONDS
 *   dlopen() every DIR/lib*.so first (hundreds: more executable mappings
 *   than one process's table index held), then as noreturn: libc's and
 *   ld.so's frames must keep their tables.
 * usage: edges coroutine SECONDS
 *   main runs co_main() on a stack of its own (makecontext, swapcontext),
 *   which blocks: its walk ends at __start_context, the coroutine's
 *   outermost frame (its return address is undefined there).
 * usage: edges rule SECONDS
 *   main -> rule_wait -> rule_block -> block_forever, where rule_wait's
 *   CFA is r11 + 8 (a register no walker can know at a call, as in
 *   libcrypto's AVX code) and rbp points at a decoy frame: the walk stops
 *   there, for a rule it does not follow, without the decoy.
 * In every mode the feeder thread's write() is the waker (its own stack
 * walked whole).
 */
#include <alloca.h>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static int fds[2];

static void *feeder(void *arg)
{
	(void)arg;
	for (;;) {
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		usleep(20000);
	}
}

__attribute__((noinline, noreturn)) static void block_forever(void)
{
	char c;

	for (;;)
		if (read(fds[0], &c, 1) <= 0)
			_exit(1);
}

__attribute__((noinline, noreturn)) void n3(void) { block_forever(); }
__attribute__((noinline, noreturn)) void n2(void) { n3(); }
__attribute__((noinline, noreturn)) void n1(void) { n2(); }

static void *thread(void *arg)
{
	(void)arg;
	n1();
}

__attribute__((noinline, noreturn)) void serve(void)
{
	block_forever();
}

__attribute__((noinline)) int deep(int n)
{
	if (n > 0)
		return deep(n - 1) + 1;
	block_forever();
}

/* dlopen() each DIR/lib*.so; 0 when at least one was loaded. */
static int open_libs(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "lib", 3) && strstr(e->d_name, ".so") &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) > 0 &&
		    dlopen(path, RTLD_NOW | RTLD_LOCAL))
			n++;
	if (d)
		closedir(d);
	return n ? 0 : -1;
}

__attribute__((noinline)) int r2(int n)
{
	char aligned[64] __attribute__((aligned(64)));
	char *v = alloca(n + 16);

	memset(aligned, n, sizeof(aligned));
	memset(v, n, n + 16);
	__asm__ volatile("" : : "r"(aligned), "r"(v) : "memory");
	if (aligned[3] + v[2] >= 0)
		block_forever();
	return aligned[5];
}

__attribute__((noinline)) int big1(int n)
{
	volatile char buf[300000];

	buf[n] = 1;
	if (buf[n] >= 0)
		block_forever();
	return buf[n / 2];
}

__attribute__((noinline)) int r1(int n)
{
	return r2(n) + 1;
}

static ucontext_t co_ctx, main_ctx;

__attribute__((noinline)) void co_main(void)
{
	block_forever();
}

/* A stack of its own for co_main(): 64 KiB. */
static void run_coroutine(void)
{
	static char co_stack[65536] __attribute__((aligned(16)));

	if (getcontext(&co_ctx))
		_exit(4);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof(co_stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_main, 0);
	swapcontext(&main_ctx, &co_ctx);
	_exit(5);
}

__attribute__((noinline, noreturn)) void rule_block(void)
{
	block_forever();
}

__attribute__((noinline)) void decoy(void)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop");
}

/* rule_wait(): the CFA kept in r11, the stack realigned, and rbp
 * pointing at a frame no caller made (saved rbp 0, return address in
 * decoy()): a frame-pointer step there adds decoy, a frame that is not. */
__asm__(".text\n"
	".globl rule_wait\n"
	".type rule_wait, @function\n"
	"rule_wait:\n"
	"	.cfi_startproc\n"
	"	mov %rsp, %r11\n"
	"	.cfi_def_cfa_register %r11\n"
	"	and $-64, %rsp\n"
	"	lea decoy+4(%rip), %rax\n"
	"	push %rax\n"
	"	push $0\n"
	"	mov %rsp, %rbp\n"
	"	call rule_block\n"
	"	ud2\n"
	"	.cfi_endproc\n"
	".size rule_wait, .-rule_wait\n");
void rule_wait(void) __attribute__((noreturn));

int main(int argc, char **argv)
{
	pthread_t t, f;
	int deep_mode = argc == 4 && !strcmp(argv[1], "deep");
	int libs_mode = argc == 4 && !strcmp(argv[1], "libs");
	int drap_mode = argc == 3 && !strcmp(argv[1], "drap");
	int ctor_mode = argc == 4 && !strcmp(argv[1], "ctor");
	int big_mode = argc == 3 && !strcmp(argv[1], "big");

	if ((argc != 3 && !deep_mode && !libs_mode && !ctor_mode) ||
	    (libs_mode && open_libs(argv[2])) || pipe(fds) ||
	    pthread_create(&f, NULL, feeder, NULL) ||
	    (!deep_mode && pthread_create(&t, NULL, thread, NULL)))
		_exit(2);
	alarm(atoi(argv[argc - 1]));	/* SIGALRM ends the process */
	if (deep_mode)
		_exit(deep(atoi(argv[2])));
	if (drap_mode)
		_exit(r1(argc));
	if (big_mode)
		_exit(big1(argc));
	if (argc == 3 && !strcmp(argv[1], "coroutine"))
		run_coroutine();
	if (argc == 3 && !strcmp(argv[1], "rule"))
		rule_wait();
	if (ctor_mode) {
		const char *go = getenv("EDGE_GO");

		while (go && access(go, F_OK))
			usleep(10000);
		if (!dlopen(argv[2], RTLD_NOW))
			_exit(3);
	}
	serve();
}
