# SPDX-License-Identifier: GPL-2.0-only
# The standard guest set-up (run by main.sh with bash -e): nfsd in the init namespace exporting a tmpfs,
# FAIRQ_CLIENTS client namespaces c1..cN on a bridge (10.99.0.11 ...), fairq loaded.
set -e
. /fairq/lib.sh
hostname fairq-guest
ip link set lo up

mkdir -p "$FAIRQ_EXPORT" /run/rpcbind /var/lib/nfs/rpc_pipefs
mount -t tmpfs -o size=768m tmpfs "$FAIRQ_EXPORT"
chmod 1777 "$FAIRQ_EXPORT"
modprobe nfsd
mount -t nfsd nfsd /proc/fs/nfsd
echo "$FAIRQ_EXPORT *(rw,no_root_squash,insecure,no_subtree_check,fsid=1)" >/etc/exports
rpcbind -w
exportfs -ra
rpc.mountd
# NFSv4 client records go to nfsdcld, as nfs-server.service arranges on a Debian server.
# Without it 6.1's nfsd falls back to running nfsdcltrack as a usermode helper for every
# new client, and in this guest that helper can hang an nfsd thread for good.
mount -t rpc_pipefs rpc_pipefs /var/lib/nfs/rpc_pipefs
mkdir -p /var/lib/nfs/nfsdcld
nfsdcld
# A restarted nfsd waits one second for nfsdcld to open its new pipe.  A loaded emulated guest
# can miss that, and nfsd then falls back to the nfsdcltrack helper (6.1, 6.12), which can
# leave an nfsd thread in call_usermodehelper_exec() for good, so that the next nfsd shutdown
# never ends.  With the helper refused (/bin/false), nfsd falls back to its recovery directory.
if [ -w /sys/module/nfsd/parameters/cltrack_prog ]; then
	echo /bin/false >/sys/module/nfsd/parameters/cltrack_prog
	mkdir -p /var/lib/nfs/v4recovery
fi
[ -z "${FAIRQ_POOL_MODE:-}" ] || fairq_pool_mode_set "$FAIRQ_POOL_MODE"
fairq_nfsd_up "$FAIRQ_THREADS"

fairq_net_up

if [ -z "${FAIRQ_NO_MODULE:-}" ]; then
	modprobe fairq
fi
