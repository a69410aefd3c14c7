// SPDX-License-Identifier: GPL-2.0-only
/*
 * weights: the weights set, and pruning those a configuration no longer has; showconf: the
 * running state as fairq.conf lines, which fairq-apply converges to (as wg showconf and
 * syncconf do for WireGuard).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/msg.h>
#include "fairqctl.h"

#define WATCHDOG_MS "/sys/kernel/fairq/watchdog_ms"
#define FAILSAFE_RESCUES "/sys/kernel/fairq/failsafe_rescues"

static int no_opt(int c, const char *arg, void *ctx)
{
	(void)c;
	(void)arg;
	(void)ctx;
	return FC_EXIT_OK;
}

static void print_weights(const struct fc_weights *w)
{
	unsigned int i;
	char key[80];

	out_doc_start();
	out_str(FC_JSON, "scheduler", NULL, w->sched);
	out_arr_start("weights");
	for (i = 0; i < w->nr; i++) {
		out_obj_start(NULL);
		out_str(FC_ANY, "key", "%s", fc_key_format(&w->w[i].id, key, sizeof(key)));
		out_exact(FC_ANY, "weight", " %s", w->w[i].weight);
		out_obj_end();
		out_text("\n");
	}
	out_arr_end();
	out_doc_end();
}

static int weight_set(struct fc_nl *nl, const struct fc_key_id *id, uint32_t weight)
{
	struct nl_msg *msg = fc_nl_msg(nl, FAIRQ_CMD_WEIGHT_SET, false);

	if (msg && (fc_key_put(msg, FAIRQ_A_KEY_ID, id) ||
		    nla_put_u32(msg, FAIRQ_A_KEY_WEIGHT, weight))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return fc_nl_transact(nl, msg, FAIRQ_A_KEY_MAX, NULL, NULL);
}

/*
 * Remove every weight of the active scheduler whose key is not in @keep.  A scheduler without
 * weights has none to remove: that is no error when nothing is to be kept either.
 */
static int prune(struct fc_nl *nl, const struct fc_key_id *keep, int nr_keep)
{
	struct fc_weights w = { };
	unsigned int i, removed = 0;
	char key[80];
	int rc = FC_EXIT_OK, err, k;

	err = fc_get_weights(nl, NULL, &w);
	if (err == -EOPNOTSUPP && !nr_keep)
		goto done;	/* no weights to remove */
	if (err) {
		rc = fc_nl_fail(nl, err, "weights prune");
		goto out;
	}
	for (i = 0; i < w.nr; i++) {
		for (k = 0; k < nr_keep && !fc_key_same(&w.w[i].id, &keep[k]); k++)
			;
		if (k < nr_keep)
			continue;
		err = weight_set(nl, &w.w[i].id, 0);
		if (err) {
			rc = fc_nl_fail(nl, err, "weights prune");
			goto out;
		}
		removed++;
		out_text("removed the weight of %s\n", fc_key_format(&w.w[i].id, key,
								   sizeof(key)));
	}
done:
	if (fc_out_opts.json) {
		out_doc_start();
		out_exact(FC_JSON, "removed", NULL, removed);
		out_doc_end();
	}
out:
	free(w.w);
	return rc;
}

int cmd_weights(int argc, char **argv)
{
	const char *sched = NULL;
	struct fc_weights w = { };
	struct fc_nl *nl;
	int rc, err;

	if (!fc_getopt(argc, argv, "", NULL, "weights [SCHED] | weights prune [KEY...]", no_opt,
		       NULL, &rc))
		return rc;
	argc -= optind;
	argv += optind;
	if (argc && !strcmp(argv[0], "prune")) {
		struct fc_key_id *keep = calloc(argc, sizeof(*keep));
		int k;

		if (!keep) {
			fc_err("weights prune: out of memory");
			return FC_EXIT_FAIL;
		}
		for (k = 1; k < argc; k++) {
			if (fc_key_parse(argv[k], &keep[k - 1])) {
				free(keep);
				return fc_usage_error("weights prune: '%s' is no key (see KEYS in fairqctl(8))",
						      argv[k]);
			}
		}
		rc = fc_nl_open(&nl);
		if (!rc) {
			rc = prune(nl, keep, argc - 1);
			fc_nl_close(nl);
		}
		free(keep);
		return rc;
	}
	if (argc > 1)
		return fc_usage_error("weights: unexpected argument '%s'", argv[1]);
	if (argc) {
		if (strlen(argv[0]) > FAIRQ_SCHED_NAME_LEN)
			return fc_usage_error("weights: '%s' is no scheduler name", argv[0]);
		sched = argv[0];
	}
	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	err = fc_get_weights(nl, sched, &w);
	if (err) {
		rc = fc_nl_fail(nl, err, "weights");
	} else {
		struct fc_scheds s;

		/* none set: say whose weights were asked for */
		if (!w.sched[0] && sched)
			snprintf(w.sched, sizeof(w.sched), "%s", sched);
		else if (!w.sched[0] && !fc_get_scheds(nl, &s))
			snprintf(w.sched, sizeof(w.sched), "%s", s.active);
		print_weights(&w);
	}
	free(w.w);
	fc_nl_close(nl);
	return rc;
}

/* One of fairq's own settings, a number in a file of /sys/kernel/fairq/. */
static int read_setting(const char *path, uint64_t *val)
{
	char buf[32];
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return -errno;
	ok = fgets(buf, sizeof(buf), f) && (buf[strcspn(buf, "\n")] = '\0', fc_parse_u64(buf, val));
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/*
 * The running state, in fairq-apply's order: the scheduler, fairq's own setting, every
 * scheduler's tunables, and the active scheduler's weights and QoS classes.  Weights and
 * classes name clients: without CAP_NET_ADMIN they cannot be read, and a configuration without
 * them would remove them all when applied, so showconf fails instead.
 */
int cmd_showconf(int argc, char **argv)
{
	struct fc_weights w = { };
	struct fc_classes c = { };
	struct fc_scheds s;
	const struct fc_sched *active = NULL;
	uint64_t watchdog_ms, failsafe_rescues = 0;
	bool has_failsafe;
	struct fc_nl *nl;
	unsigned int i, j;
	char key[80];
	int rc, err;

	if (!fc_getopt(argc, argv, "", NULL, "showconf", no_opt, NULL, &rc))
		return rc;
	if (optind < argc)
		return fc_usage_error("showconf: unexpected argument '%s'", argv[optind]);
	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	err = fc_get_scheds(nl, &s);
	if (err) {
		rc = fc_nl_fail(nl, err, "showconf");
		goto out;
	}
	err = read_setting(WATCHDOG_MS, &watchdog_ms);
	if (!err) {
		/* a module before 0.2.0 has no fail-safe: nothing to save */
		err = read_setting(FAILSAFE_RESCUES, &failsafe_rescues);
		has_failsafe = !err;
		if (err == -ENOENT)
			err = 0;
	}
	if (err) {
		fc_err("showconf: cannot read fairq's settings in /sys/kernel/fairq: %s",
		       strerror(-err));
		rc = FC_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < s.nr; i++)
		if (s.sched[i].active)
			active = &s.sched[i];
	if (active && active->weighted) {
		err = fc_get_weights(nl, NULL, &w);
		if (err) {
			rc = fc_nl_fail(nl, err, "showconf: the weights");
			goto out;
		}
	}
	if (active && active->classed) {
		err = fc_get_classes(nl, NULL, &c);
		if (err) {
			rc = fc_nl_fail(nl, err, "showconf: the classes");
			goto out;
		}
	}

	out_doc_start();
	out_text("# fairq's running state (fairqctl showconf); fairq-apply -c FILE restores it\n");
	out_str(FC_ANY, "scheduler", "SCHEDULER=%s\n", s.active);
	out_exact(FC_ANY, "watchdog_ms", "watchdog_ms=%s\n", watchdog_ms);
	if (has_failsafe)
		out_exact(FC_ANY, "failsafe_rescues", "failsafe_rescues=%s\n", failsafe_rescues);
	out_arr_start("tunables");
	for (i = 0; i < s.nr; i++) {
		for (j = 0; j < s.sched[i].nr_tunables; j++) {
			out_obj_start(NULL);
			out_str(FC_ANY, "sched", "%s.", s.sched[i].name);
			out_str(FC_ANY, "name", "%s", s.sched[i].tunables[j].name);
			out_exact(FC_ANY, "value", "=%s\n", s.sched[i].tunables[j].value);
			out_obj_end();
		}
	}
	out_arr_end();
	out_arr_start("weights");
	for (i = 0; i < w.nr; i++) {
		out_obj_start(NULL);
		out_str(FC_ANY, "key", "WEIGHT=%s", fc_key_format(&w.w[i].id, key, sizeof(key)));
		out_exact(FC_ANY, "weight", ":%s\n", w.w[i].weight);
		out_obj_end();
	}
	out_arr_end();
	out_arr_start("classes");
	for (i = 0; i < c.nr; i++) {
		char line[1024];

		out_str(FC_ANY, NULL, "CLASS=\"%s\"\n", fc_class_line(&c.c[i], line, sizeof(line)));
	}
	out_arr_end();
	out_doc_end();
out:
	free(c.c);
	free(w.w);
	fc_nl_close(nl);
	return rc;
}
