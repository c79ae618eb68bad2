/* SPDX-License-Identifier: MIT */
/*
 * A limiter region with known contents, for check_workloads.py: mkregion PATH UUID0 MEM0
 * PCT0 UUID1 MEM1 PCT1 creates the region (src/limiter/region.c's API), holds 1 GiB on
 * device 0 and 512 MiB on device 1 in this process, 256 MiB on device 0 in a child, and
 * forges the slot of a dead process holding 4 GiB on device 0 (never counted). Prints
 * "ready" and waits for standard input to close.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "region.h"

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: mkregion PATH UUID0 MEM0 PCT0 UUID1 MEM1 PCT1\n");
		return 2;
	}
	struct axl__region_limit lim[2];
	for (int d = 0; d < 2; d++) {
		snprintf(lim[d].uuid, sizeof lim[d].uuid, "%s", argv[2 + 3 * d]);
		lim[d].memory_bytes = strtoll(argv[3 + 3 * d], NULL, 10);
		lim[d].compute_percent = atoi(argv[4 + 3 * d]);
	}
	axl__region *r;
	if (axl__region_open(&r, argv[1], lim, 2) || axl__region_reserve(r, 0, 1ull << 30, NULL) ||
	    axl__region_reserve(r, 1, 512ull << 20, NULL)) {
		fprintf(stderr, "mkregion: cannot set up the region\n");
		return 1;
	}
	int go[2], ok[2];
	if (pipe(go) || pipe(ok))
		return 1;
	pid_t child = fork();
	if (child == 0) {
		axl__region *c;
		close(go[1]);
		if (axl__region_open(&c, argv[1], NULL, 0) || axl__region_reserve(c, 0, 256ull << 20, NULL))
			_exit(1);
		if (write(ok[1], "k", 1) != 1)
			_exit(1);
		char b;
		while (read(go[0], &b, 1) > 0)
			;
		axl__region_close(c);
		_exit(0);
	}
	close(go[0]);
	char b;
	if (read(ok[0], &b, 1) != 1) {
		fprintf(stderr, "mkregion: the child could not attach\n");
		return 1;
	}
	/* a dead process: one that exited, with its usage still in a slot */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	if (axl__region_test_forge(r, dead, 1, 0, 4ull << 30)) {
		fprintf(stderr, "mkregion: cannot forge the dead slot\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, &b, 1) > 0)
		;
	close(go[1]);
	waitpid(child, NULL, 0);
	axl__region_close(r);
	return 0;
}
