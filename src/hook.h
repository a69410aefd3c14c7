/* SPDX-License-Identifier: GPL-2.0-only */
/* The hooks: the only code that diverts sunrpc's functions to the core. */
#ifndef _FAIRQ_HOOK_H
#define _FAIRQ_HOOK_H

#include <linux/types.h>

int fairq_hooks_probe(void);
int fairq_hooks_enable(bool requests);
int fairq_hooks_requests(bool on);
bool fairq_hooks_refused_tracing_off(void);
void fairq_hooks_disable(void);
void fairq_hooks_release(void);
void fairq_hooks_wait_wrappers(void);

#endif /* _FAIRQ_HOOK_H */
