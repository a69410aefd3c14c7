// SPDX-License-Identifier: GPL-2.0-only
/*
 * fifo: the kernel's own dispatch.  Selecting it turns every fairq hook off, so nfsd runs the
 * unmodified sunrpc code, byte for byte, at zero cost.  It is the default at load.
 */
#include <linux/module.h>
#include <fairq/sched.h>

const struct fairq_sched_ops fairq_sched_fifo = {
	.owner	= THIS_MODULE,
	.name	= "fifo",
	.flags	= FAIRQ_SCHED_NATIVE,
};
