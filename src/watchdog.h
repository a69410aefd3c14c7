/* SPDX-License-Identifier: GPL-2.0-only */
/* The watchdog that rescues work a lost wakeup left waiting (watchdog.c). */
#ifndef _FAIRQ_WATCHDOG_H
#define _FAIRQ_WATCHDOG_H

extern unsigned int fairq_watchdog_ms;
void fairq_watchdog_start(void);
void fairq_watchdog_stop(void);

#endif /* _FAIRQ_WATCHDOG_H */
