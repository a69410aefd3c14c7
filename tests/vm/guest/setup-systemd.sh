# SPDX-License-Identifier: GPL-2.0-only
# The set-up of the systemd boot (run by main.sh with bash -e): nfsd and fairq are the boot's
# (nfs-server.service, fairq.service); only the client namespaces are added, as in setup.sh.
set -e
. /fairq/lib.sh
ip link set lo up
fairq_net_up
