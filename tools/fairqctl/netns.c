// SPDX-License-Identifier: GPL-2.0-only
/*
 * -n NETNS: run in another network namespace, as ip -n does.  fairq's netlink replies are
 * scoped to the caller's network namespace, so joining it is enough for them; nfsd's own
 * counters come from a file of the nfsd file system, which shows the namespace of whoever
 * mounted it, so fairqctl mounts its own in a mount namespace of its own.
 */
#define _GNU_SOURCE	/* setns, unshare */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "fairqctl.h"

#define NETNS_RUN_DIR	"/run/netns"	/* where ip netns add names them */
#define NFSD_FS		"/proc/fs/nfsd"

/*
 * The nfsd file system as the namespace just joined sees it: a fresh mount over the old one,
 * visible to this process only.  Where that cannot be had, the old one is hidden rather than
 * shown as this namespace's: fairqctl then says nfsd is not running here.
 */
static void nfsd_fs_remount(void)
{
	struct stat st;

	if (stat(NFSD_FS, &st) || !S_ISDIR(st.st_mode))
		return;		/* nfsd not loaded: nothing to show either way */
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL))
		return;
	if (!mount("nfsd", NFSD_FS, "nfsd", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return;
	umount2(NFSD_FS, MNT_DETACH);
}

int fq_netns_enter(const char *name)
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
		break;
	case EPERM:
	case EACCES:
		fq_err("network namespace '%s': joining it needs CAP_SYS_ADMIN", name);
		return FQ_EXIT_PERM;
	case ENOENT:
		fq_err("no network namespace '%s' (ip netns list)", name);
		return FQ_EXIT_NOENT;
	case EINVAL:
		fq_err("'%s' is not a network namespace", name);
		return FQ_EXIT_USAGE;
	default:
		fq_err("network namespace '%s': %s", name, strerror(err));
		return FQ_EXIT_FAIL;
	}
	nfsd_fs_remount();
	return FQ_EXIT_OK;
}
