// SPDX-License-Identifier: GPL-2.0-only
/*
 * -n NETNS: run in another network namespace, as ip -n does.  fairq's netlink replies are
 * scoped to the caller's network namespace, so joining it is all they need.
 *
 * nfsd's own counters are another matter: they come from a file of the nfsd file system, and
 * a mount of it shows the namespace of whoever mounted it, which nothing tells from outside.
 * Mounting one for the joined namespace is no way out either: where that namespace's nfsd has
 * no nfsd file system mounted (nfsdctl runs it over netlink), the mount would create one, and
 * its unmount when fairqctl exits would stop that nfsd.  So with -n they are not shown.
 */
#define _GNU_SOURCE	/* setns */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fairqctl.h"

#define NETNS_RUN_DIR	"/run/netns"	/* where ip netns add names them */

int fc_netns_enter(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	/* a name from ip netns add, or a path such as /proc/PID/ns/net */
	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? errno : 0;
	if (!err && setns(fd, CLONE_NEWNET))
		err = errno;
	if (fd >= 0)
		close(fd);
	switch (err) {
	case 0:
		return FC_EXIT_OK;
	case EPERM:
	case EACCES:
		fc_err("network namespace '%s': joining it needs CAP_SYS_ADMIN", name);
		return FC_EXIT_PERM;
	case ENOENT:
		fc_err("no network namespace '%s' (ip netns list)", name);
		return FC_EXIT_NOENT;
	case EINVAL:
		fc_err("'%s' is not a network namespace", name);
		return FC_EXIT_USAGE;
	default:
		fc_err("network namespace '%s': %s", name, strerror(err));
		return FC_EXIT_FAIL;
	}
}
