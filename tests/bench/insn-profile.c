// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn-profile: a QEMU TCG plugin that counts the guest instructions executed in each
 * translation block, by the block's start address, for `make budget`.
 *
 *   -plugin insn-profile.so,out=PREFIX
 *
 * Each time a guest process runs the mark, the instruction "xchg %bx,%bx" (66 87 db, which no
 * compiler emits; tests/vm/guest/bench/lib.sh runs it from python), the counts since the
 * previous mark are written to PREFIX.N (N = 1, 2, ...; lines "start-address instructions",
 * nonzero only) and start again from zero; at exit too.  A block's instructions are all put to its start address: a block ends at every
 * branch and call, so it lies within one function.
 *
 * The few entry points of QEMU's plugin API (version 1, as in QEMU 7.2) are declared here:
 * Debian does not package the header.  Under -icount QEMU runs one vCPU thread, so the
 * counters need no atomics; without it the counts are approximate.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t plugin_id;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;

void qemu_plugin_register_vcpu_tb_trans_cb(plugin_id id,
					   void (*cb)(plugin_id id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op, void *ptr,
					      uint64_t imm);
void qemu_plugin_register_atexit_cb(plugin_id id, void (*cb)(plugin_id id, void *data),
				    void *data);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    void (*cb)(unsigned int vcpu, void *data), int flags,
					    void *data);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

#define INLINE_ADD_U64	0	/* the API's only inline op */
#define CB_NO_REGS	0

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct block {
	uint64_t start;
	uint64_t insns;		/* the inline op adds to it: never moves once made */
	struct block *next;	/* in the hash chain */
};

#define HASH_BITS 20
static struct block *table[1u << HASH_BITS];
static struct block **all;	/* every block, for the dumps */
static size_t nr_all, cap_all;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_prefix;
static const unsigned char mark[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */
#define USER_TOP 0x800000000000ull	/* the mark counts in user space only */
static unsigned int snapshots;

static unsigned int hash(uint64_t a)
{
	return (unsigned int)((a * 0x9e3779b97f4a7c15ull) >> (64 - HASH_BITS));
}

static struct block *block_get(uint64_t start)
{
	unsigned int h = hash(start);
	struct block *b;

	for (b = table[h]; b; b = b->next)
		if (b->start == start)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	if (nr_all == cap_all) {
		size_t cap = cap_all ? 2 * cap_all : 65536;
		struct block **grown = realloc(all, cap * sizeof(*all));

		if (!grown) {
			free(b);
			return NULL;
		}
		all = grown;
		cap_all = cap;
	}
	b->start = start;
	b->next = table[h];
	table[h] = b;
	all[nr_all++] = b;
	return b;
}

/* Write the counts since the last mark, and start again. */
static void dump(void)
{
	char path[4096];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s.%u", out_prefix, ++snapshots);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "insn-profile: cannot write %s\n", path);
		return;
	}
	for (i = 0; i < nr_all; i++) {
		if (all[i]->insns)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", all[i]->start, all[i]->insns);
		all[i]->insns = 0;
	}
	fclose(f);
}

static void on_mark(unsigned int vcpu, void *data)
{
	(void)vcpu;
	(void)data;
	pthread_mutex_lock(&lock);
	dump();
	pthread_mutex_unlock(&lock);
}

static void on_translate(plugin_id id, struct qemu_plugin_tb *tb)
{
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	(void)id;
	pthread_mutex_lock(&lock);
	b = block_get(start);
	pthread_mutex_unlock(&lock);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64, &b->insns, n);
	else
		fprintf(stderr, "insn-profile: out of memory: block %" PRIx64 " not counted\n",
			start);
	if (start >= USER_TOP)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(mark) &&
		    !memcmp(qemu_plugin_insn_data(insn), mark, sizeof(mark)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, CB_NO_REGS, NULL);
	}
}

static void on_exit_qemu(plugin_id id, void *data)
{
	(void)id;
	(void)data;
	pthread_mutex_lock(&lock);
	dump();
	pthread_mutex_unlock(&lock);
}

__attribute__((visibility("default")))
int qemu_plugin_install(plugin_id id, const struct qemu_info_t *info, int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			out_prefix = argv[i] + 4;
		else {
			fprintf(stderr, "insn-profile: unknown argument '%s'\n", argv[i]);
			return 1;
		}
	}
	if (!out_prefix) {
		fprintf(stderr, "insn-profile: needs out=PREFIX\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_qemu, NULL);
	return 0;
}
