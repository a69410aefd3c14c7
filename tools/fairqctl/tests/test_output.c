// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side tests of the output's fast paths, no kernel needed: keys as text (IPv4 written by
 * hand, against inet_ntop and printf, which it replaces) and JSON strings (copied when plain,
 * escaped otherwise, names and values alike).  Prints "N passed, N failed".
 *
 * usage: tests/test_output
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "../fairqctl.h"
#include "../output.h"
#include "../../../tests/unit/check.h"
#include "capture.h"

/* The text of an IPv4 key as fc_key_format wrote it before its own path. */
static void reference(const struct fc_key_id *id, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET, id->addr, a, sizeof(a));
	if (id->type == FAIRQ_KEY_TYPE_SUBNET)
		snprintf(buf, len, "%s/%u", a, id->prefix_len);
	else if (id->type == FAIRQ_KEY_TYPE_CONN)
		snprintf(buf, len, "%s:%u", a, ntohs(id->port));
	else
		snprintf(buf, len, "%s", a);
}

static void test_key_format(void)
{
	static const uint8_t bytes[] = { 0, 1, 9, 10, 99, 100, 199, 255 };
	static const uint16_t ports[] = { 0, 1, 812, 2049, 9999, 10000, 65535 };
	static const uint8_t type[] = { FAIRQ_KEY_TYPE_ADDR, FAIRQ_KEY_TYPE_SUBNET,
					 FAIRQ_KEY_TYPE_CONN };
	struct fc_key_id id = { .family = AF_INET };
	char got[64], want[64], small[8];
	unsigned int i, t, mismatches = 0, n = 0;

	srandom(1);
	for (i = 0; i < 20000; i++) {
		unsigned int j;

		for (j = 0; j < 4; j++)
			id.addr[j] = i < 4096 ? bytes[(i >> (3 * j)) & 7] : random() & 0xff;
		id.port = htons(ports[i % 7] + (i >= 4096 ? random() % 10 : 0));
		id.prefix_len = i % 33;
		for (t = 0; t < 3; t++) {
			id.type = type[t];
			fc_key_format(&id, got, sizeof(got));
			reference(&id, want, sizeof(want));
			n++;
			if (strcmp(got, want) && mismatches++ < 5)
				printf("key type %u: '%s', not '%s'\n", id.type, got, want);
		}
	}
	CHECK(!mismatches, "%u of %u IPv4 keys written unlike inet_ntop and printf", mismatches, n);

	/* a buffer too small for the longest IPv4 key takes the general path, cut short */
	id.type = FAIRQ_KEY_TYPE_CONN;
	memcpy(id.addr, (uint8_t[]){ 255, 255, 255, 255 }, 4);
	id.port = htons(65535);
	fc_key_format(&id, small, sizeof(small));
	CHECK(!strcmp(small, "255.255"), "a key cut to 8 bytes is '%s'", small);
	/* other families and types are unchanged */
	memset(&id, 0, sizeof(id));
	id.type = FAIRQ_KEY_TYPE_CONN;
	id.family = AF_INET6;
	id.addr[15] = 7;
	id.port = htons(812);
	fc_key_format(&id, got, sizeof(got));
	CHECK(!strcmp(got, "[::7]:812"), "an IPv6 connection is '%s'", got);
	id.family = 0;
	fc_key_format(&id, got, sizeof(got));
	CHECK(!strcmp(got, "conn:shared"), "the shared UDP key is '%s'", got);
}

/* what @fn prints for @s, without the separator of the members after the first */
static const char *printed(void (*fn)(const void *s), const void *s, char *buf, size_t len)
{
	captured(fn, s, buf, len);
	if (buf[0] == ',')
		memmove(buf, buf + 1, strlen(buf));
	return buf;
}

static void value(const void *s)
{
	out_str(FC_JSON, "key", NULL, s);
}

static void name(const void *s)
{
	out_num(FC_JSON, s, NULL, 7);
}

/* @in as JSON: the escapes the output must use, byte by byte */
static void json_expected(const char *in, char *out)
{
	*out++ = '"';
	for (; *in; in++) {
		unsigned char c = *in;

		if (c == '"' || c == '\\')
			out += sprintf(out, "\\%c", c);
		else if (c == '\n')
			out += sprintf(out, "\\n");
		else if (c == '\t')
			out += sprintf(out, "\\t");
		else if (c < 0x20)
			out += sprintf(out, "\\u%04x", c);
		else
			*out++ = c;
	}
	strcpy(out, "\"");
}

/* @in written as the member "key": counted in @bad unless with the escapes of json_expected(),
 * the first wrong one shown */
static void sweep_one(const char *in, unsigned int *bad)
{
	char want[256], buf[256];

	memcpy(want, "\"key\":", 6);
	json_expected(in, want + 6);
	printed(value, in, buf, sizeof(buf));
	if (strcmp(buf, want) && !(*bad)++)
		fprintf(stderr, "  first wrong: %s for %s\n", buf, want);
}

/*
 * Each character that needs an escape, at each place of strings of 1 to 31 bytes, among plain
 * bytes of every kind (the lowest and highest plain ones, DEL, UTF-8), and the plain strings
 * alone: the writer copies plain strings in one pass and must hand over to the escaping one
 * wherever the first such character is.
 */
static void test_json_string_sweep(void)
{
	static const char specials[] = { 0x01, 0x1f, '\n', '\t', '"', '\\' };
	static const char filler[] = " ~\x7f\xc3\xa9\x80\xff!#/09AZaz[]{}:";
	char in[32];
	unsigned int s, len, at, i, bad = 0, runs = 0;

	fc_out_opts.json = true;
	for (len = 1; len < sizeof(in); len++) {
		for (i = 0; i < len; i++)
			in[i] = filler[(i * 5 + len) % (sizeof(filler) - 1)];
		in[len] = '\0';
		sweep_one(in, &bad);
		runs++;
		for (s = 0; s < sizeof(specials); s++) {
			for (at = 0; at < len; at++) {
				char was = in[at];

				in[at] = specials[s];
				sweep_one(in, &bad);
				runs++;
				in[at] = was;
			}
		}
	}
	fc_out_opts.json = false;
	CHECK(!bad, "%u of %u strings with and without escapes written wrongly", bad, runs);
}

static void test_json_strings(void)
{
	static const struct {
		const char *in, *value, *name;
	} cases[] = {
		{ "10.99.0.1:812", "\"key\":\"10.99.0.1:812\"", "\"10.99.0.1:812\":7" },
		{ "", "\"key\":\"\"", "\"\":7" },
		{ "a\"b", "\"key\":\"a\\\"b\"", "\"a\\\"b\":7" },
		{ "back\\slash", "\"key\":\"back\\\\slash\"", "\"back\\\\slash\":7" },
		{ "tab\there\n", "\"key\":\"tab\\there\\n\"", "\"tab\\there\\n\":7" },
		{ "bell\a", "\"key\":\"bell\\u0007\"", "\"bell\\u0007\":7" },
		{ "caf\xc3\xa9", "\"key\":\"caf\xc3\xa9\"", "\"caf\xc3\xa9\":7" },
	};
	char buf[256], *big;
	unsigned int i;
	size_t n;

	fc_out_opts.json = true;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		printed(value, cases[i].in, buf, sizeof(buf));
		CHECK(!strcmp(buf, cases[i].value), "value '%s' written as %s, not %s", cases[i].in,
		      buf, cases[i].value);
		printed(name, cases[i].in, buf, sizeof(buf));
		CHECK(!strcmp(buf, cases[i].name), "name '%s' written as %s, not %s", cases[i].in,
		      buf, cases[i].name);
	}
	/* a string longer than the output buffer (64 KiB) arrives whole */
	n = 200000;
	big = malloc(n + 1);
	if (big) {
		char *out = malloc(n + 64);

		memset(big, 'x', n);
		big[n] = '\0';
		big[n / 2] = '"';
		if (out) {
			printed(value, big, out, n + 64);
			CHECK(strlen(out) == n + 9 && !strncmp(out, "\"key\":\"x", 8) &&
			      out[7 + n / 2] == '\\' && out[8 + n / 2] == '"',
			      "a string of %zu bytes with a quote was written as %zu bytes", n,
			      strlen(out));
			free(out);
		}
		free(big);
	}
	fc_out_opts.json = false;
}

/*
 * Members with names given as literals (copied as they are, unchecked) and numbers written in
 * place, past the end of the output buffer (64 KiB), after a lead-in of each length up to a
 * member's: every member, at every place, meets the buffer's end.  (A name that is checked
 * makes room for a string of its own first, so none is among them.)
 */
#define LEAD_INS	96
#define MEMBERS		900	/* about 70 KiB */

static void many_members(const void *arg)
{
	unsigned int i;

	out_str(FC_JSON, NULL, NULL, arg);
	for (i = 0; i < MEMBERS; i++) {
		out_num(FC_JSON, "dispatches", NULL, (uint64_t)i * 1000003);
		out_pct(FC_JSON, "share", NULL, i / (double)MEMBERS);
		out_exact(FC_JSON, "thread_ns", NULL, UINT64_MAX - i);
		out_rate(FC_JSON, "r", NULL, i + 0.5);
	}
}

static void test_members_in_place(void)
{
	size_t len = MEMBERS * 100 + LEAD_INS + 16;
	char *got = malloc(len), *want = malloc(len), lead_in[LEAD_INS + 1];
	unsigned int i, n, pretty, bad = 0;
	char *p;

	if (!got || !want) {
		CHECK(false, "out of memory");
		free(got);
		free(want);
		return;
	}
	fc_out_opts.json = true;
	/* pretty: a space after each name's colon (members at the top level get no indent) */
	for (pretty = 0; pretty < 2; pretty++) {
		const char *colon = pretty ? ": " : ":";

		fc_out_opts.pretty = pretty;
		for (n = 0; n < LEAD_INS; n++) {
			memset(lead_in, 'a', n);
			lead_in[n] = '\0';
			p = want + sprintf(want, "\"%s\"", lead_in);
			for (i = 0; i < MEMBERS; i++)
				p += sprintf(p, ",\"dispatches\"%s%llu,\"share\"%s%.4f,"
					     "\"thread_ns\"%s%llu,\"r\"%s%.3f", colon,
					     (unsigned long long)i * 1000003, colon,
					     i / (double)MEMBERS, colon,
					     (unsigned long long)(UINT64_MAX - i), colon, i + 0.5);
			printed(many_members, lead_in, got, len);
			if (strcmp(got, want) && !bad++)
				fprintf(stderr, "%s, after a lead-in of %u: %zu bytes, %zu expected\n",
					pretty ? "pretty" : "compact", n, strlen(got), strlen(want));
		}
	}
	fc_out_opts.json = false;
	fc_out_opts.pretty = false;
	CHECK(!bad, "%u of %u runs of members written in place wrongly", bad, 2 * LEAD_INS);
	free(got);
	free(want);
}

int main(void)
{
	test_key_format();
	test_json_strings();
	test_json_string_sweep();
	test_members_in_place();
	return check_summary();
}
