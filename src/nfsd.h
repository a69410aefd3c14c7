/* SPDX-License-Identifier: GPL-2.0-only */
/* Which sunrpc service fairq takes over: nfsd's. */
#ifndef _FAIRQ_NFSD_H
#define _FAIRQ_NFSD_H

#include <linux/sunrpc/svc.h>

/*
 * Only nfsd is dispatched by fairq; lockd and the NFS client's callback service stay native.
 * Every hook entry asks, several times per request: in line, without strcmp().
 */
static inline bool fairq_serv_is_managed(const struct svc_serv *serv)
{
	const char *name = serv ? serv->sv_name : NULL;

	return name && name[0] == 'n' && name[1] == 'f' && name[2] == 's' && name[3] == 'd' &&
	       !name[4];
}

#endif /* _FAIRQ_NFSD_H */
