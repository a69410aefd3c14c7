// SPDX-License-Identifier: GPL-2.0-only
/*
 * One call per field prints it as text or as JSON, whichever -j asked for, so that the two
 * never drift apart (iproute2's json_print idea).  FC_TEXT and FC_JSON restrict a call to one
 * side: text gets human numbers and units, JSON exact integers.
 */
#define _GNU_SOURCE	/* fwrite_unlocked */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "output.h"

struct fc_out_opts fc_out_opts;
const char *fc_cmd = "show";

/*
 * The JSON side writes through a buffer of its own rather than printf: a dump of 10,000 keys
 * is 1.7 MB of JSON, and stdio's per-call locking, format parsing and small writes made it
 * 25 ms of CPU (on a 2024 desktop), half of the 50 ms budget for the whole command.  Anything
 * else that writes to stdout flushes it first (out_flush).
 */
static char obuf[65536];
static size_t olen;

void out_flush(void)
{
	if (olen)
		fwrite_unlocked(obuf, 1, olen, stdout);
	olen = 0;
}

static void emit(const char *s, size_t n)
{
	if (olen + n > sizeof(obuf)) {
		out_flush();
		if (n > sizeof(obuf)) {
			fwrite_unlocked(s, 1, n, stdout);
			return;
		}
	}
	memcpy(obuf + olen, s, n);
	olen += n;
}

static void emit_char(char c)
{
	if (olen == sizeof(obuf))
		out_flush();
	obuf[olen++] = c;
}

static void emit_str(const char *s)
{
	emit(s, strlen(s));
}

#define U64_DIGITS	20	/* of 2^64 - 1 */

/* @v in decimal, written where it goes: a dump of 10,000 keys writes 90,000 numbers */
static void emit_u64(uint64_t v)
{
	uint64_t rest = v;
	unsigned int n = 1;
	char *p;

	while (rest >= 10) {
		rest /= 10;
		n++;
	}
	if (olen + U64_DIGITS > sizeof(obuf))
		out_flush();
	olen += n;
	p = obuf + olen;
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
}

#define MAX_DECIMALS	6

/* @v with @decimals digits after the point (at most 6), as printf's %.Nf would. */
static void emit_fixed(double v, unsigned int decimals)
{
	static const uint64_t scale[MAX_DECIMALS + 1] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	uint64_t n, frac;
	unsigned int i;
	char *p;

	if (!(v >= 0 && v < 1e12) || decimals > MAX_DECIMALS) {
		char big[64];

		emit(big, snprintf(big, sizeof(big), "%.*f", (int)decimals, v));
		return;
	}
	n = (uint64_t)(v * scale[decimals] + 0.5);
	emit_u64(n / scale[decimals]);
	if (!decimals)
		return;
	frac = n % scale[decimals];
	if (olen + 1 + MAX_DECIMALS > sizeof(obuf))
		out_flush();
	p = obuf + olen;
	*p = '.';
	for (i = decimals; i; frac /= 10)
		p[i--] = '0' + frac % 10;
	olen += 1 + decimals;
}

/* JSON writer state: how deep we are, and whether the current container has members. */
static unsigned int depth;
#define MAX_DEPTH	32
static bool has_member[MAX_DEPTH];

static void indent(void)
{
	unsigned int i;

	if (!fc_out_opts.pretty)
		return;
	emit_char('\n');
	for (i = 0; i < depth; i++)
		emit_str("  ");
}

/* the characters a JSON string cannot hold as they are */
static const bool json_special[256] = { [0 ... 0x1f] = true, ['"'] = true, ['\\'] = true };

static bool json_plain(unsigned char c)
{
	return !json_special[c];
}

static void json_escaped(const char *s)
{
	size_t run;

	emit_char('"');
	for (;;) {
		for (run = 0; s[run] && json_plain(s[run]); run++)
			;
		emit(s, run);
		s += run;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\') {
			emit_char('\\');
			emit_char(*s);
		} else if (*s == '\n') {
			emit_str("\\n");
		} else if (*s == '\t') {
			emit_str("\\t");
		} else {
			char u[8];

			emit(u, snprintf(u, sizeof(u), "\\u%04x", (unsigned char)*s));
		}
		s++;
	}
	emit_char('"');
}

/*
 * @s as a JSON string.  Nearly every string is plain (values are keys and names, names are
 * the module's counter names): copied while checked, in one pass that stops at the end of the
 * string or at a character that needs escaping (the end is one of those), and escaped by
 * json_escaped() only then.  A dump of 10,000 keys writes 180,000 strings, most of them
 * short, so the pass takes no strlen() first.
 */
#define JSON_SHORT	64	/* longer strings: whatever room the buffer has left */

static void json_string(const char *s)
{
	const unsigned char *src = (const unsigned char *)s;
	char *dst, *end;

	if (olen + JSON_SHORT + 2 > sizeof(obuf))
		out_flush();
	dst = obuf + olen;
	*dst++ = '"';
	for (end = obuf + sizeof(obuf) - 1; dst < end && !json_special[*src]; dst++, src++)
		*dst = *src;
	if (dst < end && !*src) {
		*dst++ = '"';
		olen = dst - obuf;
		return;
	}
	/* a character to escape, or more than the buffer holds: writes over the partial copy */
	json_escaped(s);
}

/* Start a member of the current container: separator, indentation, and the name if any. */
static void member(struct fc_name key)
{
	if (has_member[depth])
		emit_char(',');
	has_member[depth] = true;
	if (depth)
		indent();
	if (key.len && olen + key.len + 4 <= sizeof(obuf)) {
		char *dst = obuf + olen;

		dst[0] = '"';
		memcpy(dst + 1, key.s, key.len);
		dst[key.len + 1] = '"';
		dst[key.len + 2] = ':';
		olen += key.len + 3;
	} else if (key.s) {
		json_string(key.s);
		emit_char(':');
	} else {
		return;
	}
	if (fc_out_opts.pretty)
		emit_char(' ');
}

static void open_container(struct fc_name key, char c)
{
	member(key);
	emit_char(c);
	if (depth + 1 < MAX_DEPTH)
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
	emit_char(c);
}

/* A document: the top-level object, with the version of its format and its command. */
void out_doc_start(void)
{
	if (!fc_out_opts.json)
		return;
	depth = 0;
	has_member[0] = false;
	open_container(FC_NAME(NULL), '{');
	open_container(FC_NAME("output_version"), '{');
	member(FC_NAME("command"));
	json_escaped(fc_cmd);
	member(FC_NAME("vers_major"));
	emit_u64(FC_JSON_MAJOR);
	member(FC_NAME("vers_minor"));
	emit_u64(FC_JSON_MINOR);
	close_container('}');
	/* when it was made, so that documents saved and compared later still say */
	member(FC_NAME("time"));
	emit_u64((uint64_t)time(NULL));
}

void out_doc_end(void)
{
	if (!fc_out_opts.json)
		return;
	close_container('}');
	emit_char('\n');
	out_flush();
	fflush(stdout);
}

void out_obj_start_(struct fc_name key)
{
	if (fc_out_opts.json)
		open_container(key, '{');
}

void out_obj_end(void)
{
	if (fc_out_opts.json)
		close_container('}');
}

void out_arr_start_(struct fc_name key)
{
	if (fc_out_opts.json)
		open_container(key, '[');
}

void out_arr_end(void)
{
	if (fc_out_opts.json)
		close_container(']');
}

static bool json_side(enum fc_out w)
{
	return fc_out_opts.json && w != FC_TEXT;
}

static bool text_side(enum fc_out w)
{
	return !fc_out_opts.json && w != FC_JSON;
}

void out_str_(enum fc_out w, struct fc_name key, const char *fmt, const char *val)
{
	if (json_side(w)) {
		member(key);
		json_string(val);
	} else if (text_side(w)) {
		printf(fmt, val);
	}
}

/* Human: up to 99999 as is, then k, M, G, T with three significant digits (1000-based). */
const char *fc_human(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "kMGTPE";
	double d = (double)v;
	int u = -1;

	if (fc_out_opts.exact || v < 100000) {
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

void out_num_(enum fc_out w, struct fc_name key, const char *fmt, uint64_t val)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		emit_u64(val);
	} else if (text_side(w)) {
		printf(fmt, fc_human(val, buf, sizeof(buf)));
	}
}

/* Identifiers and small counts: never abbreviated. */
void out_exact_(enum fc_out w, struct fc_name key, const char *fmt, uint64_t val)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		emit_u64(val);
	} else if (text_side(w)) {
		snprintf(buf, sizeof(buf), "%" PRIu64, val);
		printf(fmt, buf);
	}
}

/* A duration in nanoseconds: JSON keeps the integer, text picks a unit. */
void out_ns_(enum fc_out w, struct fc_name key, const char *fmt, uint64_t ns)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		emit_u64(ns);
		return;
	}
	if (!text_side(w))
		return;
	if (fc_out_opts.exact)
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
void out_pct_(enum fc_out w, struct fc_name key, const char *fmt, double frac)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		emit_fixed(frac, 4);
	} else if (text_side(w)) {
		snprintf(buf, sizeof(buf), "%.1f%%", frac * 100);
		printf(fmt, buf);
	}
}

void out_rate_(enum fc_out w, struct fc_name key, const char *fmt, double per_sec)
{
	char buf[32];

	if (json_side(w)) {
		member(key);
		emit_fixed(per_sec, 3);
	} else if (text_side(w)) {
		if (per_sec < 0)
			per_sec = 0;
		fc_human((uint64_t)(per_sec + 0.5), buf, sizeof(buf));
		printf(fmt, buf);
	}
}

void out_bool_(enum fc_out w, struct fc_name key, const char *fmt, bool val)
{
	if (json_side(w)) {
		member(key);
		emit_str(val ? "true" : "false");
	} else if (text_side(w)) {
		printf(fmt, val ? "yes" : "no");
	}
}

/* Free text: only without -j. */
void out_text(const char *fmt, ...)
{
	va_list ap;

	if (fc_out_opts.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}
