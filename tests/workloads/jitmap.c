// SPDX-License-Identifier: Apache-2.0
/*
 * jitmap.c - a short-lived "JIT" process (tests/t_memory.sh): it copies a
 * stub that sleeps 10 ms (nanosleep) into an anonymous executable page,
 * names it NAME in /tmp/perf-PID.map as JIT runtimes do, calls it for MS
 * milliseconds and exits, leaving the map behind (as they do too).
 * x86-64 only.  Usage: jitmap MS NAME
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* push rbp; mov rbp,rsp; mov eax,35 (nanosleep); syscall; pop rbp; ret */
static const unsigned char stub[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb8, 0x23, 0x00, 0x00, 0x00, 0x0f, 0x05,
	0x5d, 0xc3,
};

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	long (*sleep_in_jit)(const struct timespec *, struct timespec *);
	char path[64];
	unsigned char *code;
	FILE *map;
	long calls;

	if (argc != 3)
		return 2;
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, stub, sizeof(stub));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map)
		return 1;
	fprintf(map, "%lx %zx %s\n", (unsigned long)code, sizeof(stub), argv[2]);
	fclose(map);
	sleep_in_jit = (void *)code;
	for (calls = atol(argv[1]) / 10; calls > 0; calls--)
		sleep_in_jit(&nap, NULL);
	return 0;
}
