// SPDX-License-Identifier: GPL-2.0-only
/*
 * One call per field prints it as text or as JSON, whichever -j asked for, so that the two
 * never drift apart (iproute2's json_print idea).  FQ_TEXT and FQ_JSON restrict a call to one
 * side: text gets human numbers and units, JSON exact integers.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "fairqctl.h"

/* JSON writer state: how deep we are, and whether the current container has members. */
static unsigned int depth;
static bool has_member[32];

static void indent(void)
{
	unsigned int i;

	if (!fq_opts.pretty)
		return;
	putchar('\n');
	for (i = 0; i < depth; i++)
		fputs("  ", stdout);
}

static void json_escaped(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Start a member of the current container: separator, indentation, and the key if any. */
static void member(const char *key)
{
	if (has_member[depth])
		putchar(',');
	has_member[depth] = true;
	if (depth)
		indent();
	if (key) {
		json_escaped(key);
		fputs(fq_opts.pretty ? ": " : ":", stdout);
	}
}

static void open_container(const char *key, char c)
{
	member(key);
	putchar(c);
	if (depth + 1 < ARRAY_SIZE(has_member))
		depth++;
	has_member[depth] = false;
}

static void close_container(char c)
{
	bool members = has_member[depth];

	if (depth)
		depth--;
	if (members)
		indent();
	putchar(c);
}

/* A document: the top-level object, with the version of its format and its command. */
void out_doc_start(void)
{
	if (!fq_opts.json)
		return;
	depth = 0;
	has_member[0] = false;
	open_container(NULL, '{');
	open_container("output_version", '{');
	member("command");
	json_escaped(fq_cmd);
	member("vers_major");
	printf("%d", FQ_JSON_MAJOR);
	member("vers_minor");
	printf("%d", FQ_JSON_MINOR);
	close_container('}');
}

void out_doc_end(void)
{
	if (!fq_opts.json)
		return;
	close_container('}');
	putchar('\n');
	fflush(stdout);
}

void out_obj_start(const char *key)
{
	if (fq_opts.json)
		open_container(key, '{');
}

void out_obj_end(void)
{
	if (fq_opts.json)
		close_container('}');
}

void out_arr_start(const char *key)
{
	if (fq_opts.json)
		open_container(key, '[');
}

void out_arr_end(void)
{
	if (fq_opts.json)
		close_container(']');
}

static bool json_side(enum fq_out w)
{
	return fq_opts.json && w != FQ_TEXT;
}

static bool text_side(enum fq_out w)
{
	return !fq_opts.json && w != FQ_JSON;
}

void out_str(enum fq_out w, const char *key, const char *fmt, const char *val)
{
	if (json_side(w)) {
		member(key);
		json_escaped(val);
	} else if (text_side(w)) {
		printf(fmt, val);
	}
}

/* Human: up to 99999 as is, then k, M, G, T with three significant digits (1000-based). */
const char *fq_human(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "kMGTPE";
	double d = (double)v;
	int u = -1;

	if (fq_opts.exact || v < 100000) {
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
	while (d >= 999.95 && u < 5) {
		d /= 1000;
		u++;
	}
	snprintf(buf, len, d < 9.995 ? "%.2f%c" : d < 99.95 ? "%.1f%c" : "%.0f%c", d, unit[u]);
	return buf;
}

void out_num(enum fq_out w, const char *key, const char *fmt, uint64_t val)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		printf("%" PRIu64, val);
	} else if (text_side(w)) {
		printf(fmt, fq_human(val, buf, sizeof(buf)));
	}
}

/* Identifiers and small counts: never abbreviated. */
void out_exact(enum fq_out w, const char *key, const char *fmt, uint64_t val)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		printf("%" PRIu64, val);
	} else if (text_side(w)) {
		snprintf(buf, sizeof(buf), "%" PRIu64, val);
		printf(fmt, buf);
	}
}

/* A duration in nanoseconds: JSON keeps the integer, text picks a unit. */
void out_ns(enum fq_out w, const char *key, const char *fmt, uint64_t ns)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		printf("%" PRIu64, ns);
		return;
	}
	if (!text_side(w))
		return;
	if (fq_opts.exact)
		snprintf(buf, sizeof(buf), "%" PRIu64 "ns", ns);
	else if (ns < 10000)
		snprintf(buf, sizeof(buf), "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, sizeof(buf), "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, sizeof(buf), "%.1fms", ns / 1e6);
	else
		snprintf(buf, sizeof(buf), "%.1fs", ns / 1e9);
	printf(fmt, buf);
}

/* A fraction: JSON as a number in [0, 1], text as a percentage. */
void out_pct(enum fq_out w, const char *key, const char *fmt, double frac)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		printf("%.4f", frac);
	} else if (text_side(w)) {
		snprintf(buf, sizeof(buf), "%.1f%%", frac * 100);
		printf(fmt, buf);
	}
}

void out_rate(enum fq_out w, const char *key, const char *fmt, double per_sec)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		printf("%.3f", per_sec);
	} else if (text_side(w)) {
		if (per_sec < 0)
			per_sec = 0;
		fq_human((uint64_t)(per_sec + 0.5), buf, sizeof(buf));
		printf(fmt, buf);
	}
}

void out_bool(enum fq_out w, const char *key, const char *fmt, bool val)
{
	if (json_side(w)) {
		member(key);
		fputs(val ? "true" : "false", stdout);
	} else if (text_side(w)) {
		printf(fmt, val ? "yes" : "no");
	}
}

/* Free text: only without -j. */
void out_text(const char *fmt, ...)
{
	va_list ap;

	if (fq_opts.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}
