/* SPDX-License-Identifier: GPL-2.0-only */
/* fairqctl's output: one call per field, for text and JSON alike (iproute2's json_print). */
#ifndef FAIRQCTL_OUTPUT_H
#define FAIRQCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The version of the -j documents; bump the minor for additions, the major for changes. */
#define FC_JSON_MAJOR	2
#define FC_JSON_MINOR	1

/* How documents are written, as the command line says (before the first is started). */
struct fc_out_opts {
	bool json;
	bool pretty;
	bool exact;
};
extern struct fc_out_opts fc_out_opts;
extern const char *fc_cmd;	/* the running command, named in messages and every document */

enum fc_out { FC_ANY, FC_TEXT, FC_JSON };
void out_doc_start(void);
void out_doc_end(void);
void out_flush(void);
void out_obj_start(const char *key);
void out_obj_end(void);
void out_arr_start(const char *key);
void out_arr_end(void);
void out_str(enum fc_out w, const char *key, const char *fmt, const char *val);
void out_num(enum fc_out w, const char *key, const char *fmt, uint64_t val);
void out_exact(enum fc_out w, const char *key, const char *fmt, uint64_t val);
void out_ns(enum fc_out w, const char *key, const char *fmt, uint64_t ns);
void out_pct(enum fc_out w, const char *key, const char *fmt, double frac);
void out_rate(enum fc_out w, const char *key, const char *fmt, double per_sec);
void out_bool(enum fc_out w, const char *key, const char *fmt, bool val);
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fc_human(uint64_t v, char *buf, size_t len);

#endif
