// SPDX-License-Identifier: Apache-2.0
/*
 * usymname.c - name addresses of a live process as a capture names its
 * user frames (src/symbols/usyms.c: symbols, debug files, MiniDebugInfo,
 * Go's pclntab, else the file), without BPF: for tests/t_names.sh.
 *
 * Usage: usymname [--plain] [--wait] PID ADDR...   one line per ADDR
 *        (hex): the function's name, else "[FILE]" (with --plain
 *        "[unknown]"), or "[unknown]" outside any mapping; --wait reads
 *        PID's maps, then standard input to its end, then names (the
 *        test can replace files and end PID meanwhile); then what
 *        procmaps_report_denied() says, on standard error
 * Exit status: 0, or 1 when PID's maps cannot be read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/procmaps.h"
#include "symbols/usyms.h"

int main(int argc, char **argv)
{
	struct procmaps *pm = procmaps_new();
	struct usyms *u = pm ? usyms_new(pm) : NULL;
	bool plain = argc > 1 && !strcmp(argv[1], "--plain"), wait;
	uint32_t pid;

	argv += plain;
	argc -= plain;
	wait = argc > 1 && !strcmp(argv[1], "--wait");
	argv += wait;
	argc -= wait;
	if (argc < 2 || !u) {
		fprintf(stderr, "usage: usymname [--plain] [--wait] PID ADDR...\n");
		return 2;
	}
	pid = strtoul(argv[1], NULL, 10);
	if (procmaps_learn(pm, pid)) {
		fprintf(stderr, "usymname: cannot read the maps of %s\n", argv[1]);
		return 1;
	}
	while (wait && getchar() != EOF)
		;
	for (int i = 2; i < argc; i++) {
		uint64_t addr = strtoull(argv[i], NULL, 16);
		const char *name = usyms_name(u, pid, addr);

		if (!name && !plain)
			name = usyms_file_name(u, pid, addr);
		printf("%s\n", name ? name : "[unknown]");
	}
	procmaps_report_denied();
	usyms_free(u);
	procmaps_free(pm);
	return 0;
}
