// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq_svctime: a test-only module that makes every nfsd request of selected clients hold its
 * thread for a fixed time before it is served, independently of fairq.  With T threads and D ms
 * per request, thread time is the only scarce resource and the server's ceiling is T/D requests
 * per second: the method of the 2026 linux-nfs fair-queueing RFC, so that shares are measurable
 * under emulation, where absolute speed means nothing.
 *
 *   /sys/module/fairq_svctime/parameters/delay_us   hold time per request (0 = off)
 *   /sys/module/fairq_svctime/parameters/clients    IPv4 addresses, comma separated, or "all"
 *   /sys/module/fairq_svctime/parameters/inside     requests in the wrapper now
 *
 * nfsd_dispatch() is redirected (ftrace IPMODIFY, address from a kprobe lookup) to a wrapper
 * that sleeps with a high-resolution timer, then calls the real function.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/inet.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sunrpc/svc.h>
#include "compat/compat.h"

#define MAX_CLIENTS 16

static unsigned int delay_us;
module_param(delay_us, uint, 0644);
MODULE_PARM_DESC(delay_us, "thread time each selected request holds before service (us)");

static __be32 client_addrs[MAX_CLIENTS];
static unsigned int nr_clients;
static bool all_clients;
static char clients_str[256];

static int clients_set(const char *val, const struct kernel_param *kp)
{
	__be32 addrs[MAX_CLIENTS];
	char buf[256], *cur, *tok;
	unsigned int n = 0;

	if (strscpy(buf, val, sizeof(buf)) < 0)
		return -EINVAL;
	cur = strim(buf);
	if (!strcmp(cur, "all")) {
		WRITE_ONCE(all_clients, true);
		strscpy(clients_str, cur, sizeof(clients_str));
		return 0;
	}
	while ((tok = strsep(&cur, ",")) != NULL) {
		if (!*tok)
			continue;
		if (n == MAX_CLIENTS || !in4_pton(tok, -1, (u8 *)&addrs[n], -1, NULL))
			return -EINVAL;
		n++;
	}
	WRITE_ONCE(nr_clients, 0);
	WRITE_ONCE(all_clients, false);
	memcpy(client_addrs, addrs, n * sizeof(addrs[0]));
	WRITE_ONCE(nr_clients, n);
	strscpy(clients_str, strim(buf), sizeof(clients_str));
	return 0;
}

static int clients_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", clients_str);
}

static const struct kernel_param_ops clients_ops = { .set = clients_set, .get = clients_get };
module_param_cb(clients, &clients_ops, NULL, 0644);
MODULE_PARM_DESC(clients, "IPv4 client addresses to slow down, comma separated, or \"all\"");

/*
 * nfsd_dispatch(rqstp) on 6.3+, nfsd_dispatch(rqstp, statp) before: the wrapper passes a
 * second argument through either way (the one-argument version never reads it).
 */
static int (*real_dispatch)(struct svc_rqst *rqstp, void *arg2);

static bool selected(const struct svc_rqst *rqstp)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&rqstp->rq_addr;
	unsigned int i, n = READ_ONCE(nr_clients);

	if (READ_ONCE(all_clients))
		return true;
	if (sin->sin_family != AF_INET)
		return false;
	for (i = 0; i < n; i++) {
		if (client_addrs[i] == sin->sin_addr.s_addr)
			return true;
	}
	return false;
}

/* threads inside svctime_dispatch(): unload waits for them (they may sleep there) */
static atomic_t inside = ATOMIC_INIT(0);

static int inside_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&inside));
}

static const struct kernel_param_ops inside_ops = { .get = inside_get };
module_param_cb(inside, &inside_ops, NULL, 0444);
MODULE_PARM_DESC(inside, "requests in the wrapper now (asleep, or being served)");

static int svctime_dispatch(struct svc_rqst *rqstp, void *arg2)
{
	unsigned int us;
	int ret;

	atomic_inc(&inside);
	us = READ_ONCE(delay_us);
	if (us && selected(rqstp))
		usleep_range(us, us + 50);
	ret = real_dispatch(rqstp, arg2);
	atomic_dec(&inside);
	return ret;
}

static void notrace svctime_redirect(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	if (!within_module(parent_ip, THIS_MODULE))
		fairq_fregs_set_ip(fregs, (unsigned long)svctime_dispatch);
}

static struct ftrace_ops svctime_ops = {
	.func = svctime_redirect,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION,
};

static int __init svctime_init(void)
{
	struct kprobe kp = { .symbol_name = "nfsd_dispatch" };
	unsigned long addr;
	int err;

	err = register_kprobe(&kp);
	if (err) {
		pr_err("nfsd_dispatch not found (load nfsd first): %d\n", err);
		return err;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* kprobes land after an ENDBR64; an indirect call must target the ENDBR itself */
	if (!memcmp((void *)(addr - 4), "\xf3\x0f\x1e\xfa", 4))
		addr -= 4;
	real_dispatch = (void *)addr;
	err = ftrace_set_filter_ip(&svctime_ops, addr, 0, 0);
	if (!err)
		err = register_ftrace_function(&svctime_ops);
	if (err)
		ftrace_free_filter(&svctime_ops);
	return err;
}

static void __exit svctime_exit(void)
{
	unregister_ftrace_function(&svctime_ops);
	/*
	 * No thread enters any more; those asleep in the wrapper finish their request, and then
	 * every task passes a voluntary switch, so none is left on the wrapper's last instructions.
	 */
	while (atomic_read(&inside))
		msleep(20);
	synchronize_rcu_tasks();
	ftrace_free_filter(&svctime_ops);
}

module_init(svctime_init);
module_exit(svctime_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fairq test helper: fixed thread time per nfsd request");
