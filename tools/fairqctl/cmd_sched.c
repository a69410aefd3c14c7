// SPDX-License-Identifier: GPL-2.0-only
/* sched [set NAME], set PARAM VALUE, weight KEY WEIGHT. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/msg.h>
#include "fairqctl.h"

struct sched_opts {
	bool names;
	bool params;
};

static int sched_opt(int c, const char *arg, void *ctx)
{
	struct sched_opts *o = ctx;

	(void)arg;
	if (c == 'n')
		o->names = true;
	else if (c == 'P')
		o->params = true;
	return FC_EXIT_OK;
}

static void print_scheds(const struct fc_scheds *s)
{
	unsigned int i, j;

	out_doc_start();
	out_str(FC_JSON, "active", NULL, s->active);
	out_arr_start("schedulers");
	for (i = 0; i < s->nr; i++) {
		const struct fc_sched *sc = &s->sched[i];

		out_obj_start(NULL);
		out_str(FC_ANY, "name", "%-10s", sc->name);
		out_bool(FC_JSON, "active", NULL, sc->active);
		out_bool(FC_JSON, "native", NULL, sc->native);
		out_bool(FC_JSON, "keyed", NULL, sc->keyed);
		out_bool(FC_JSON, "weighted", NULL, sc->weighted);
		out_bool(FC_JSON, "classed", NULL, sc->classed);
		out_text("%s", sc->active ? " [active]" : "         ");
		if (sc->native)
			out_text(" the kernel's own dispatch: fairq's hooks are off");
		else if (sc->keyed)
			out_text(" per-key accounts%s%s",
				 !sc->weighted ? "" : sc->classed ? ", weights" : " and weights",
				 sc->classed ? " and QoS classes" : "");
		if (*sc->alias)
			out_text("; the old name %s still works", sc->alias);
		out_text("\n");
		out_arr_start("tunables");
		for (j = 0; j < sc->nr_tunables; j++) {
			const struct fc_tunable *t = &sc->tunables[j];
			char range[96];

			if (t->has_def)
				snprintf(range, sizeof(range), "[%llu..%llu] default %llu",
					 (unsigned long long)t->min, (unsigned long long)t->max,
					 (unsigned long long)t->def);
			else
				snprintf(range, sizeof(range), "[%llu..%llu]",
					 (unsigned long long)t->min, (unsigned long long)t->max);
			out_obj_start(NULL);
			out_str(FC_TEXT, NULL, "    %s.", sc->name);
			out_str(FC_ANY, "name", "%-12s", t->name);
			out_exact(FC_ANY, "value", " %8s", t->value);
			out_exact(FC_JSON, "min", NULL, t->min);
			out_exact(FC_JSON, "max", NULL, t->max);
			if (t->has_def)
				out_exact(FC_JSON, "default", NULL, t->def);
			out_str(FC_TEXT, NULL, "  %-16s", range);
			out_str(FC_ANY, "doc", " %s", t->doc);
			out_obj_end();
			out_text("\n");
		}
		out_arr_end();
		out_obj_end();
	}
	out_arr_end();
	out_doc_end();
}

int cmd_sched(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "names", no_argument, NULL, 'n' },
		{ "params", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct sched_opts o = { };
	struct fc_scheds s;
	struct nl_msg *msg;
	struct fc_nl *nl;
	unsigned int i;
	int rc, err;

	if (!fc_getopt(argc, argv, "nP", longopts, "sched [--names|--params] | sched set NAME",
		       sched_opt, &o, &rc))
		return rc;
	argc -= optind;
	argv += optind;
	if (argc && strcmp(argv[0], "set"))
		return fc_usage_error("sched: unknown subcommand '%s'", argv[0]);
	if (argc == 1)
		return fc_usage_error("sched set: which scheduler?");
	if (argc > 2)
		return fc_usage_error("sched set: unexpected argument '%s'", argv[2]);
	if (argc == 2 && (!*argv[1] || strlen(argv[1]) > FAIRQ_SCHED_NAME_LEN))
		return fc_usage_error("sched set: '%s' is no scheduler name", argv[1]);

	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	if (argc == 2) {
		fc_cmd = "sched set";
		msg = fc_nl_msg(nl, FAIRQ_CMD_SCHED_SET, false);
		if (msg && nla_put_string(msg, FAIRQ_A_SCHED_NAME, argv[1])) {
			nlmsg_free(msg);
			msg = NULL;
		}
		err = fc_nl_transact(nl, msg, FAIRQ_A_SCHED_MAX, NULL, NULL);
		if (err)
			rc = fc_nl_fail(nl, err, "sched set");
		goto out;
	}
	err = fc_get_scheds(nl, &s);
	if (err) {
		rc = fc_nl_fail(nl, err, "sched");
		goto out;
	}
	/* for scripts and completion: one name per line */
	if (o.names || o.params) {
		for (i = 0; i < s.nr; i++) {
			unsigned int j;

			if (o.names)
				printf("%s\n", s.sched[i].name);
			for (j = 0; o.params && j < s.sched[i].nr_tunables; j++)
				printf("%s.%s\n", s.sched[i].name, s.sched[i].tunables[j].name);
		}
		goto out;
	}
	print_scheds(&s);
out:
	fc_nl_close(nl);
	return rc;
}

static int no_opt(int c, const char *arg, void *ctx)
{
	(void)c;
	(void)arg;
	(void)ctx;
	return FC_EXIT_OK;
}

/* The default of tunable @param of @sched ("": the active scheduler), as the module says it. */
static int default_of(struct fc_nl *nl, const char *sched, const char *param, uint64_t *val)
{
	struct fc_scheds s;
	unsigned int i, j;
	int err;

	err = fc_get_scheds(nl, &s);
	if (err)
		return fc_nl_fail(nl, err, "set");
	for (i = 0; i < s.nr; i++) {
		const struct fc_sched *sc = &s.sched[i];

		if (*sched ? strcmp(sc->name, sched) && strcmp(sc->alias, sched) : !sc->active)
			continue;
		for (j = 0; j < sc->nr_tunables; j++) {
			if (strcmp(sc->tunables[j].name, param))
				continue;
			if (!sc->tunables[j].has_def) {
				fc_err("set: this fairq module does not say the default of %s.%s",
				       sc->name, param);
				return FC_EXIT_NOTSUP;
			}
			*val = sc->tunables[j].def;
			return FC_EXIT_OK;
		}
		fc_err("set: %s has no tunable %s", sc->name, param);
		return FC_EXIT_NOENT;
	}
	fc_err("set: no scheduler %s on this kernel", sched);
	return FC_EXIT_NOENT;
}

int cmd_set(int argc, char **argv)
{
	char sched[FAIRQ_SCHED_NAME_LEN + 2] = "";
	const char *param, *dot;
	struct nl_msg *msg;
	struct fc_nl *nl;
	bool to_default;
	uint64_t val;
	int rc, err;

	if (!fc_getopt(argc, argv, "", NULL, "set [SCHED.]PARAM VALUE|default", no_opt, NULL, &rc))
		return rc;
	argc -= optind;
	argv += optind;
	if (argc != 2)
		return fc_usage_error("set: needs PARAM and VALUE");
	param = argv[0];
	dot = strchr(param, '.');
	if (dot) {
		if (dot == param || (size_t)(dot - param) > FAIRQ_SCHED_NAME_LEN)
			return fc_usage_error("set: '%s' is no SCHED.PARAM", param);
		memcpy(sched, param, dot - param);
		sched[dot - param] = '\0';
		param = dot + 1;
	}
	if (!*param || strlen(param) > FAIRQ_TUNABLE_NAME_LEN)
		return fc_usage_error("set: '%s' is no tunable name", argv[0]);
	to_default = !strcmp(argv[1], "default");
	if (!to_default && !fc_parse_u64(argv[1], &val))
		return fc_usage_error("set: VALUE must be a non-negative integer or default, not '%s'",
				      argv[1]);

	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	if (to_default) {
		rc = default_of(nl, sched, param, &val);
		if (rc) {
			fc_nl_close(nl);
			return rc;
		}
	}
	msg = fc_nl_msg(nl, FAIRQ_CMD_PARAM_SET, false);
	if (msg && ((*sched && nla_put_string(msg, FAIRQ_A_SCHED_NAME, sched)) ||
		    nla_put_string(msg, FAIRQ_A_SCHED_TUNABLE_NAME, param) ||
		    nla_put_u64(msg, FAIRQ_A_SCHED_TUNABLE_VALUE, val))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	err = fc_nl_transact(nl, msg, FAIRQ_A_SCHED_MAX, NULL, NULL);
	if (err)
		rc = fc_nl_fail(nl, err, "set");
	fc_nl_close(nl);
	return rc;
}

static int weight_opt(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c == 'c')
		*(bool *)ctx = true;
	return FC_EXIT_OK;
}

int cmd_weight(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct fc_key_id id;
	struct nl_msg *msg;
	struct fc_nl *nl;
	bool check = false;
	uint64_t w;
	int rc, err;

	if (!fc_getopt(argc, argv, "c", longopts, "weight [--check] KEY WEIGHT", weight_opt, &check,
		       &rc))
		return rc;
	argc -= optind;
	argv += optind;
	if (argc != 2)
		return fc_usage_error("weight: needs KEY and WEIGHT");
	if (fc_key_parse(argv[0], &id))
		return fc_usage_error("weight: '%s' is no key (see KEYS in fairqctl(8))", argv[0]);
	if (!fc_parse_u64(argv[1], &w) || w > UINT32_MAX)
		return fc_usage_error("weight: WEIGHT must be an integer from 0 to %u, not '%s'",
				      UINT32_MAX, argv[1]);
	if (check)	/* well-formed: what fairq-apply asks before it changes anything */
		return FC_EXIT_OK;

	rc = fc_nl_open(&nl);
	if (rc)
		return rc;
	msg = fc_nl_msg(nl, FAIRQ_CMD_WEIGHT_SET, false);
	if (msg && (fc_key_put(msg, FAIRQ_A_KEY_ID, &id) ||
		    nla_put_u32(msg, FAIRQ_A_KEY_WEIGHT, w))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	err = fc_nl_transact(nl, msg, FAIRQ_A_KEY_MAX, NULL, NULL);
	if (err)
		rc = fc_nl_fail(nl, err, "weight");
	fc_nl_close(nl);
	return rc;
}
