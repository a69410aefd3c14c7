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
void out_obj_end(void);
void out_arr_end(void);
/*
 * A member's name, as a call names it.  A string literal is one of this program's own names,
 * plain by construction: its length is known when fairqctl is built, and it is copied as it
 * is.  Any other name (the module's counter names) is measured, checked and escaped where it
 * must be.  A dump of 10,000 keys writes 160,000 names: checking each literal's characters
 * was a fifth of fairqctl's instructions.
 */
struct fc_name {
	const char *s;
	size_t len;		/* a literal's; 0: check @s when writing it */
};
static inline size_t fc_name_len(const char *s)
{
	return s ? __builtin_strlen(s) : 0;
}
#define FC_NAME(key) \
	((struct fc_name){ (key), __builtin_constant_p(key) ? fc_name_len(key) : 0 })

void out_obj_start_(struct fc_name key);
void out_arr_start_(struct fc_name key);
void out_str_(enum fc_out w, struct fc_name key, const char *fmt, const char *val);
void out_num_(enum fc_out w, struct fc_name key, const char *fmt, uint64_t val);
void out_exact_(enum fc_out w, struct fc_name key, const char *fmt, uint64_t val);
void out_ns_(enum fc_out w, struct fc_name key, const char *fmt, uint64_t ns);
void out_pct_(enum fc_out w, struct fc_name key, const char *fmt, double frac);
void out_rate_(enum fc_out w, struct fc_name key, const char *fmt, double per_sec);
void out_bool_(enum fc_out w, struct fc_name key, const char *fmt, bool val);
#define out_obj_start(key)		out_obj_start_(FC_NAME(key))
#define out_arr_start(key)		out_arr_start_(FC_NAME(key))
#define out_str(w, key, fmt, val)	out_str_(w, FC_NAME(key), fmt, val)
#define out_num(w, key, fmt, val)	out_num_(w, FC_NAME(key), fmt, val)
#define out_exact(w, key, fmt, val)	out_exact_(w, FC_NAME(key), fmt, val)
#define out_ns(w, key, fmt, ns)		out_ns_(w, FC_NAME(key), fmt, ns)
#define out_pct(w, key, fmt, frac)	out_pct_(w, FC_NAME(key), fmt, frac)
#define out_rate(w, key, fmt, rate)	out_rate_(w, FC_NAME(key), fmt, rate)
#define out_bool(w, key, fmt, val)	out_bool_(w, FC_NAME(key), fmt, val)
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *fc_human(uint64_t v, char *buf, size_t len);

#endif
