/* SPDX-License-Identifier: GPL-2.0-only */
/* fairqctl's host-side tests: what a function prints on stdout, output buffer and all. */
#ifndef FAIRQCTL_TEST_CAPTURE_H
#define FAIRQCTL_TEST_CAPTURE_H
#include <stdio.h>
#include <unistd.h>
#include "../output.h"

/* What @print writes on stdout for @arg (fairqctl's JSON buffer flushed), in @buf. */
static const char *captured(void (*print)(const void *arg), const void *arg, char *buf,
			    size_t len)
{
	FILE *f = tmpfile();
	size_t n;
	int saved;

	buf[0] = '\0';
	if (!f)
		return "(no tmpfile)";
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fileno(f), STDOUT_FILENO);
	print(arg);
	out_flush();
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}
#endif
