// SPDX-License-Identifier: GPL-2.0-only
/*
 * fairq_decoy: a test-only module that carries functions under the names of the sunrpc
 * functions fairq finds by symbol lookup at load (where requests start and end, and where a
 * thread looks for work), as a kpatch-style live patch module carries its replacement copies
 * under the original names.  A lookup by bare name finds the copy of the module loaded last,
 * this one; fairq must hook sunrpc's own functions whatever else is loaded.
 *
 * Nothing calls these functions.  Each is global and not inlined, so that it has a symbol and
 * an ftrace record, as a live patch's copy has.
 */
#include <linux/compiler.h>
#include <linux/module.h>

noinline int svc_process(void *arg);
noinline int svc_process(void *arg)
{
	return !!arg;
}

noinline int svc_send(void *arg);
noinline int svc_send(void *arg)
{
	return !!arg;
}

noinline int svc_drop(void *arg);
noinline int svc_drop(void *arg)
{
	return !!arg;
}

noinline int svc_xprt_dequeue(void *arg);
noinline int svc_xprt_dequeue(void *arg)
{
	return !!arg;
}

noinline int svc_thread_should_sleep(void *arg);
noinline int svc_thread_should_sleep(void *arg)
{
	return !!arg;
}

MODULE_DESCRIPTION("fairq test helper: functions named as sunrpc's, for the hook lookup test");
MODULE_LICENSE("GPL");
