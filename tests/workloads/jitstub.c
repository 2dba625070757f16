// SPDX-License-Identifier: Apache-2.0
/*
 * jitstub.c - a long-lived "JIT" process for the perf map tests
 * (tests/t_harden_syms.sh, t_hardening2.sh): a stub in an anonymous
 * executable page that sleeps 20 ms (nanosleep), called in a loop until
 * killed.  It prints "ADDR SIZE PID" (the stub's, hex, and its pid) and
 * writes no map of its own, unless given NAME: then it creates its empty
 * /tmp/perf-PID.map at once and writes the stub's line, named NAME, when
 * sent SIGUSR1.  x86-64 only.  Usage: jitstub [NAME]
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* push rbp; mov rbp,rsp; mov eax,35 (nanosleep); syscall; pop rbp; ret */
static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0xb8, 0x23, 0, 0, 0,
				      0x0f, 0x05, 0x5d, 0xc3 };
static volatile sig_atomic_t go;

static void on_usr1(int sig) { go = sig; }

int main(int argc, char **argv)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	long (*fn)(const struct timespec *, struct timespec *) = (void *)p;
	char path[64];
	FILE *map = NULL;

	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	printf("%lx %zx %d\n", (unsigned long)p, sizeof(code), (int)getpid());
	fflush(stdout);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	signal(SIGUSR1, on_usr1);
	if (argc > 1 && !(map = fopen(path, "w")))
		return 1;
	for (;;) {
		if (map && go) {
			fprintf(map, "%lx %zx %s\n", (unsigned long)p, sizeof(code), argv[1]);
			fclose(map);
			map = NULL;
		}
		fn(&ts, NULL);
	}
}
