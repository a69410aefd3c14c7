/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace stand-ins for the few kernel interfaces fairq's pure logic touches. */
#ifndef SHIM_LINUX_TYPES_H
#define SHIM_LINUX_TYPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;
#define BIT(n) (1UL << (n))
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)
#endif
