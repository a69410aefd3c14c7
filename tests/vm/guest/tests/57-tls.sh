#!/bin/bash
# NFS over TLS (xprtsec=tls) where the kernel has it.  A new connection is handed to tlshd for
# its handshake before nfsd reads an RPC from it, and fairq leaves a transport in handshake to
# the kernel's path.  With a self-signed certificate made here, tlshd in the server's and in
# each client's network namespace, and an export that takes TLS only:
# - under every scheduler, a new TLS mount (a new handshake while the policy runs) writes and
#   reads back its data;
# - two clients run fio with verification over TLS through live switches and an unload;
# - the server's kernel TLS counters say the connections were encrypted, and the watchdog
#   rescues nothing.
. /fairq/lib.sh
command -v tlshd >/dev/null || { echo "no tlshd (ktls-utils) in this userland"; exit 4; }
modprobe tls 2>/dev/null || { echo "no kernel TLS module on $(uname -r)"; exit 4; }
D=/tmp/fairq-tls
TLS_EXPORT=/srv/tls
TLSHD_PIDS=""
cleanup() {
	pkill -INT -x fio
	exportfs -u "*:$TLS_EXPORT" 2>/dev/null
	# shellcheck disable=SC2086
	[ -n "$TLSHD_PIDS" ] && kill $TLSHD_PIDS 2>/dev/null
	fairq_set_sched fifo
}
trap cleanup EXIT
mkdir -p "$D" "$TLS_EXPORT"
mountpoint -q "$TLS_EXPORT" || mount -t tmpfs -o size=256m tmpfs "$TLS_EXPORT"
chmod 1777 "$TLS_EXPORT"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=fairq-guest \
	-addext "subjectAltName=IP:$FAIRQ_SERVER" -keyout "$D/server.key" -out "$D/server.pem" \
	>/tmp/openssl.log 2>&1 || fail "openssl: $(tail -n 3 /tmp/openssl.log)"
cat >"$D/tlshd.conf" <<EOF
[debug]
loglevel=0
tls=0
nl=0

[authenticate]

[authenticate.client]
x509.truststore= $D/server.pem

[authenticate.server]
x509.certificate= $D/server.pem
x509.private_key= $D/server.key
EOF
tlshd -c "$D/tlshd.conf" >/tmp/tlshd.log 2>&1 &
TLSHD_PIDS="$!"
for c in 1 2 3; do
	ip netns exec "c$c" tlshd -c "$D/tlshd.conf" >"/tmp/tlshd-c$c.log" 2>&1 &
	TLSHD_PIDS="$TLSHD_PIDS $!"
done
sleep 1
exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=2,xprtsec=tls "*:$TLS_EXPORT" ||
	fail "exportfs refused xprtsec=tls"
export FAIRQ_NFS_TARGET=$FAIRQ_SERVER:$TLS_EXPORT

# tls_stat NAME: a counter of the server's kernel TLS statistics
tls_stat() {
	awk -v n="$1" '$1 == n { print $2 }' /proc/net/tls_stat
}

rx0=$(tls_stat TlsRxSw)
for s in $(fairq_scheds); do
	fairq_set_sched "$s" || fail "switch to $s refused"
	FAIRQ_NFS_OPTS=xprtsec=tls timeout 120 bash -c ". /fairq/lib.sh; fairq_nfs 3 4.2 \
		'dd if=/dev/urandom of=f bs=64k count=16 2>/dev/null && sha1sum f >f.sum && sync &&
		 sha1sum -c f.sum >/dev/null && rm -f f f.sum'" >/tmp/tls-$s.log 2>&1 ||
		fail "$s: a TLS mount did not write and read back its data: $(tail -n 5 /tmp/tls-$s.log; tail -n 5 /tmp/tlshd-c3.log)"
done
rx1=$(tls_stat TlsRxSw)
log "a TLS mount under each of: $(fairq_scheds); server TLS sessions $rx0 -> $rx1"
[ "$rx1" -gt "$rx0" ] || fail "the server's TlsRxSw did not move ($rx0 -> $rx1): no TLS session"

export FAIRQ_NFS_OPTS=xprtsec=tls
fairq_fio_start "1:4.2:$FAIRQ_SERVER:$TLS_EXPORT" "2:4.2:$FAIRQ_SERVER:$TLS_EXPORT"
sleep 10
fairq_switch_storm 20
rmmod fairq || fail "rmmod with TLS clients busy failed"
modprobe fairq || fail "reload failed"
fairq_set_sched fq
sleep 5
fairq_fio_stop
fairq_set_sched fifo
log "server TLS sessions now $(tls_stat TlsCurrRxSw) (current), $(tls_stat TlsRxSw) (all)"
# without TLS the export is refused, so the test ran over TLS (last: on 6.12 a refused mount
# leaves its client record behind for a while, and a TLS mount of the same client then fails)
unset FAIRQ_NFS_OPTS
if fairq_nfs 3 4.2 'true' >/tmp/plain.log 2>&1; then
	fail "a mount without xprtsec=tls of the TLS-only export worked"
fi
[ "$(fairq_rescues)" = 0 ] || fail "the watchdog rescued $(fairq_rescues) transports"
log "fio over TLS through 20 switches and an unload"
