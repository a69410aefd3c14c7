# SPDX-License-Identifier: GPL-2.0-only
# Helpers for scripts that run inside the test guest (sourced).  See tests/vm/README.md.

FAIRQ_SERVER=10.99.0.1
FAIRQ_SERVER6=fd99::1	# the same server over IPv6; client N is fd99::1N beside 10.99.0.1N
FAIRQ_EXPORT=/srv/nfs
FAIRQ_SYSFS=/sys/kernel/fairq
FAIRQ_DEBUGFS=/sys/kernel/debug/fairq
FAIRQ_KERNEL=$(cat /fairq/kernel)	# as tests/vm/run -k names it: 6.1, 6.12-debug, 7.3-kcsan
FAIRQ_SERIES=${FAIRQ_KERNEL%-*}		# the stock series it is: 6.1, 6.12, 7.3
FAIRQ_CLIENTS=${FAIRQ_CLIENTS:-3}
FAIRQ_THREADS=${FAIRQ_THREADS:-8}

log() { echo "# [${SECONDS}s] $*"; }	# seconds since the test began
fail() {
	echo "# FAIL: $*"
	exit 1
}

# fairq_net_up: the bridge with the server address and the client namespaces c1..cN on it,
# each with its own NFSv4 client identifier.
fairq_net_up() {
	ip link add br0 type bridge
	ip addr add "$FAIRQ_SERVER/24" dev br0
	ip addr add "$FAIRQ_SERVER6/64" dev br0 nodad
	ip link set br0 up
	for i in $(seq 1 "$FAIRQ_CLIENTS"); do
		ip netns add "c$i"
		ip link add "veth$i" type veth peer name eth0 netns "c$i"
		ip link set "veth$i" master br0 up
		ip -n "c$i" addr add "10.99.0.$((10 + i))/24" dev eth0
		ip -n "c$i" addr add "fd99::$((10 + i))/64" dev eth0 nodad
		ip -n "c$i" link set eth0 up
		ip -n "c$i" link set lo up
	done
	# Every namespace shares the guest's hostname, so without a per-namespace identifier all
	# their NFSv4 clients would present one client owner and the server would take each new
	# mount for a reboot of the others' client, expiring their state (as nfs-utils' udev rule
	# does for containers, see the kernel's filesystems/nfs/client-identifier).
	modprobe nfs
	for i in $(seq 1 "$FAIRQ_CLIENTS"); do
		ip netns exec "c$i" sh -c "echo fairq-guest-c$i >/sys/fs/nfs/net/nfs_client/identifier"
	done
}

# fairq_client N CMD: run CMD (sh) in client N's network namespace.
fairq_client() {
	local n=$1
	shift
	ip netns exec "c$n" sh -c "$*"
}

# fairq_nfs N VERS CMD: mount the export in client N with NFS version VERS, run CMD (sh) inside
# the mount in the same mount namespace, unmount.  Each call gets its own private mount
# namespace (ip netns exec), so mount and use must happen in one call.
fairq_nfs() {
	local n=$1 vers=$2 server=$FAIRQ_SERVER proto=tcp
	shift 2
	# FAIRQ_NFS_SERVER6=1: over IPv6; FAIRQ_NFS_TARGET=SERVER:EXPORT: another server's export;
	# FAIRQ_NFS_OPTS: more mount options (xprtsec=tls)
	[ -n "${FAIRQ_NFS_SERVER6:-}" ] && server="[$FAIRQ_SERVER6]" proto=tcp6
	local opts="vers=$vers,proto=$proto,hard${FAIRQ_NFS_OPTS:+,$FAIRQ_NFS_OPTS}"
	local target=${FAIRQ_NFS_TARGET:-$server:$FAIRQ_EXPORT}
	[ "$vers" = 3 ] && opts="$opts,nolock"
	ip netns exec "c$n" sh -c "mkdir -p /mnt/nfs && mount -t nfs -o $opts $target /mnt/nfs || exit 99
		mkdir -p /mnt/nfs/c$n && cd /mnt/nfs/c$n && { $*; }; rc=\$?; cd /; umount /mnt/nfs || umount -l /mnt/nfs; exit \$rc"
}

# fairq_fio_start: client 1 (NFSv3) and client 2 (NFSv4.1) run fio with verification until
# fairq_fio_stop; their retransmissions count from here (fairq_fio_retrans).
fairq_fio_start() {	# fairq_fio_start [N:VERS[:SERVER:EXPORT] ...] (default: 1:3 2:4.1 on the server)
	local job="fio --name=v --size=2m --bs=4k --rw=randrw --ioengine=psync --direct=1 --numjobs=2 --time_based --runtime=3600 --verify=crc32c --verify_fatal=1 --minimal"
	local spec n vers server export
	FAIRQ_FIO_CLIENTS=""
	FAIRQ_FIO_PIDS=""
	FAIRQ_FIO_RETRANS=""
	for spec in ${*:-1:3 2:4.1}; do
		read -r n vers server export <<<"${spec//:/ }"
		FAIRQ_FIO_CLIENTS="$FAIRQ_FIO_CLIENTS $n"
		FAIRQ_FIO_RETRANS="$FAIRQ_FIO_RETRANS $(fairq_retrans "$n")"
		FAIRQ_NFS_TARGET=${server:+$server:$export} fairq_nfs "$n" "$vers" "$job" >"/tmp/fio$n" 2>&1 &
		FAIRQ_FIO_PIDS="$FAIRQ_FIO_PIDS $!"
	done
}
fairq_fio_stop() {
	local c p i left
	# shellcheck disable=SC2086 # a pid each
	kill -0 $FAIRQ_FIO_PIDS 2>/dev/null || fail "a fio client died"
	# SIGINT to the fio each client started, which tells its job processes to end after their
	# current I/O.  Not to the jobs themselves: each would run fio's handler too, which logs
	# from the signal handler (not async-signal safe) in the middle of the job's own work.
	for p in $(pgrep -x fio); do
		[ "$(cat "/proc/$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null)/comm" 2>/dev/null)" = fio ] ||
			kill -INT "$p" 2>/dev/null
	done
	# A client whose mount hangs never ends: name it, rather than wait for the test's timeout
	for i in $(seq 1 180); do
		left=""
		# shellcheck disable=SC2086 # a client number each, in the order of the pids
		set -- $FAIRQ_FIO_CLIENTS
		for p in $FAIRQ_FIO_PIDS; do
			kill -0 "$p" 2>/dev/null && left="$left $1"
			shift
		done
		[ -z "$left" ] && break
		sleep 1
	done
	if [ -n "$left" ]; then
		for c in $left; do
			echo "client $c: $(tail -c 300 /tmp/fio$c)"
		done
		dmesg | grep -E 'nfs|NFS|lockd|rpc' | tail -n 12
		fairq_stall_report
		# shellcheck disable=SC2086 # a client number each
		fail "client(s)$left: fio and its mount did not end within 180 s of SIGINT ($(fairq_stall_summary $left))"
	fi
	# shellcheck disable=SC2086
	wait $FAIRQ_FIO_PIDS
	for c in $FAIRQ_FIO_CLIENTS; do
		grep -q '^3;' /tmp/fio$c || { cat /tmp/fio$c; fail "client $c: fio did not report"; }
		if grep -qiE 'verify|bad magic|io_u error|error=' /tmp/fio$c; then
			cat /tmp/fio$c
			fail "client $c: I/O error"
		fi
	done
}
fairq_fio_retrans() {
	local c b
	# shellcheck disable=SC2086 # one count per client
	set -- $FAIRQ_FIO_RETRANS
	for c in $FAIRQ_FIO_CLIENTS; do
		b=$1
		shift
		[ $(($(fairq_retrans "$c") - b)) = 0 ] || fail "client $c retransmitted"
	done
}

# fairq_retrans N: RPC retransmissions seen by client N's network namespace so far.
fairq_retrans() {
	ip netns exec "c$1" awk '$1 == "rpc" { print $3 }' /proc/net/rpc/nfs 2>/dev/null || echo 0
}

fairq_sched() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "$FAIRQ_SYSFS/scheduler"
}

fairq_set_sched() {
	echo "$1" >"$FAIRQ_SYSFS/scheduler"
}

# Every scheduler this kernel offers.
fairq_scheds() {
	tr -d '[]' <"$FAIRQ_SYSFS/scheduler"
}

# fairq_need_sched NAME: end the test as skipped (exit 4) on a kernel that does not offer NAME
fairq_need_sched() {
	fairq_scheds | tr ' ' '\n' | grep -qx "$1" || { echo "$1 not offered on this kernel"; exit 4; }
}

# fairq_bench_lib DIR: the benchmarks' helpers (client, greedy_start, svctime_on ...) for a
# test, with one repetition at full scale and their output in DIR
fairq_bench_lib() {
	export B_OUT=$1 B_SCALE=1 B_REPS=1
	mkdir -p "$B_OUT"
	. /fairq/bench/lib.sh
}

# fairq_series_wait SECONDS FILE...: wait until each load generator has written the first line
# of its --series FILE (its set-up is done and its clock runs); fails after SECONDS.
fairq_series_wait() {
	local limit=$1 f i
	shift
	for i in $(seq 1 $((limit * 5))); do
		for f in "$@"; do
			[ -s "$f" ] || break
		done
		[ -s "$f" ] && return 0
		sleep 0.2
	done
	return 1
}

# fairq_switch_storm N [CMD]: N live switches to random schedulers, 0.2 s apart, ending on fq;
# fifo is picked a quarter as often as the others (each change of hooks is slow under TCG).
# CMD (sh) runs after every tenth switch, e.g. to change a tunable meanwhile.
fairq_switch_storm() {
	local n=$1 cmd=${2:-} i s scheds
	scheds=($(fairq_scheds))
	for i in $(seq 1 "$n"); do
		s=${scheds[$((RANDOM % ${#scheds[@]}))]}
		[ "$s" = fifo ] && [ $((RANDOM % 4)) != 0 ] && s=fq
		echo "$s" >"$FAIRQ_SYSFS/scheduler" || fail "switch to $s refused"
		if [ -n "$cmd" ] && [ $((i % 10)) = 0 ]; then
			bash -c "$cmd" || fail "during the switches, '$cmd' failed"
		fi
		sleep 0.2
	done
	fairq_set_sched fq
}

# fairq_pool_sum FIELD: a debugfs pool counter (core or the scheduler's own), summed over every pool
fairq_pool_sum() {
	awk -v f="$1" '$1 == "serv" { for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1) } END { print s + 0 }' \
		"$FAIRQ_DEBUGFS/pools"
}

# fairq_module_counter NAME: one of the module's counters, from debugfs's "module" line
fairq_module_counter() {
	awk -v f="$1" '$1 == "module" { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' \
		"$FAIRQ_DEBUGFS/pools"
}

# fairq_expect_rescues: this test makes the watchdog rescue transports on purpose; the harness
# then does not count its rescue messages as a fault (the test checks the counter itself)
fairq_expect_rescues() {
	: >/tmp/fairq-rescues-expected
}

# fairq_rescues: watchdog rescues since this test started (the module may have been reloaded
# meanwhile, which starts the count again)
fairq_rescues() {
	local now
	now=$(cat "$FAIRQ_SYSFS/rescues")
	if [ "$now" -ge "${FAIRQ_RESCUES_BASE:-0}" ]; then
		echo $((now - ${FAIRQ_RESCUES_BASE:-0}))
	else
		echo "$now"
	fi
}

# fairq_nfsd_up [THREADS]: start (or restart) nfsd with a short grace period.
fairq_nfsd_up() {
	local t=${1:-$FAIRQ_THREADS}
	echo 10 >/proc/fs/nfsd/nfsv4leasetime 2>/dev/null || true
	echo 10 >/proc/fs/nfsd/nfsv4gracetime 2>/dev/null || true
	rpc.nfsd "$t"
}

fairq_nfsd_down() {
	rpc.nfsd 0
}

# fairq_pool_mode_set MODE (nfsd stopped): sunrpc's parameter, and nfsd's own pool mode over
# netlink where nfsd has one (6.11 and later; 7.3's nfsd no longer reads the parameter).
fairq_pool_mode_set() {
	echo "$1" >/sys/module/sunrpc/parameters/pool_mode || return 1
	python3 /fairq/nfsd-nl.py pool-mode "$1" >/tmp/nfsd-pool-mode.out 2>&1 ||
		grep -q '^errno 2:' /tmp/nfsd-pool-mode.out	# no pool-mode command in this nfsd
}

# fairq_nfsd_restart_in MODE [THREADS]: nfsd stopped, started again in pool mode MODE;
# fairq_nfsd_restore_mode (a test's cleanup) puts back the mode it had before the first call.
fairq_nfsd_restart_in() {
	FAIRQ_POOL_MODE0=${FAIRQ_POOL_MODE0:-$(fairq_pool_mode)}
	fairq_nfsd_down
	fairq_pool_mode_set "$1" || return 1
	fairq_nfsd_up "${2:-$FAIRQ_THREADS}"
}
fairq_nfsd_restore_mode() {
	fairq_nfsd_down
	fairq_pool_mode_set "${FAIRQ_POOL_MODE0:?fairq_nfsd_restart_in was not called}"
	fairq_nfsd_up
}

# fairq_pool_mode: the pool mode nfsd starts with (its own where it has one)
fairq_pool_mode() {
	local mode
	mode=$(python3 /fairq/nfsd-nl.py pool-mode 2>/dev/null | sed -n 's/.*"mode": "\([a-z]*\)".*/\1/p')
	[ -n "$mode" ] || mode=$(cat /sys/module/sunrpc/parameters/pool_mode)
	echo "$mode"
}

fairq_nr_pools() {
	grep -c '^[0-9]' /proc/fs/nfsd/pool_stats
}

# fairq_expect_write_fails FILE VALUE: the write must be refused and the file unchanged.
fairq_expect_write_fails() {
	local before after
	before=$(cat "$1")
	if printf '%s' "$2" >"$1" 2>/dev/null; then
		fail "writing '$2' to $1 succeeded"
	fi
	after=$(cat "$1")
	[ "$before" = "$after" ] || fail "$1 changed after a refused write: '$before' -> '$after'"
}

# fairq_nfsd_stacks: where each nfsd thread and every blocked task waits (for a stall report).
fairq_nfsd_stacks() {
	local t
	for t in $(pgrep -x nfsd) $(ps -eo pid=,stat= | awk '$2 ~ /D/ { print $1 }'); do
		echo "== $t $(cat /proc/$t/comm 2>/dev/null) $(cat /proc/$t/wchan 2>/dev/null)"
		cat /proc/$t/stack 2>/dev/null
	done
}

# fairq_stall_report: what a hung client waits for, for the failure's report: the kernel
# clients' RPCs still in flight (with their transport's state), every client's retransmissions,
# nfsd's threads and blocked tasks, and what fairq holds
fairq_stall_report() {
	local d=/sys/kernel/debug/sunrpc f c t p st
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	echo "== RPCs in flight (tasks of each rpc_clnt; empty files omitted)"
	# debugfs files have no size: read them to know whether they are empty
	for f in "$d"/rpc_clnt/*/tasks; do
		t=$(head -n 20 "$f" 2>/dev/null)
		[ -n "$t" ] && printf -- '-- %s\n%s\n' "$f" "$t"
	done
	echo "== tasks of the clients waiting uninterruptibly (D), and where"
	for f in /proc/[0-9]*/stat; do
		read -r p c st _ <"$f" 2>/dev/null || continue
		[ "$st" = D ] || continue
		echo "-- $p $c"
		head -n 12 "/proc/$p/stack" 2>/dev/null
	done
	for f in "$d"/rpc_xprt/*/info; do
		[ -f "$f" ] && { echo "-- $f"; cat "$f"; }
	done
	for c in 1 2 3; do echo "client $c retransmissions: $(fairq_retrans "$c")"; done
	echo "== fairq: scheduler $(cat "$FAIRQ_SYSFS/scheduler" 2>/dev/null), rescues $(cat "$FAIRQ_SYSFS/rescues" 2>/dev/null)"
	cat "$FAIRQ_DEBUGFS/pools" 2>/dev/null
	fairq_nfsd_stacks | head -n 200
}

# fairq_stall_summary: the stall report in one line, for the verdict that is all a CI log's tail
# may show: each client's RPCs in flight (the first one's action and queue say where it waits)
# and its connection's state (sunrpc's XPRT_* bits), the server's connections with unread
# calls (a transport nobody serves, where a call nfsd dropped leaves none), then what fairq's
# pools hold queued.  Each client N named gets its processes' state and wait channel: a client
# with no RPC in flight and no task in D waits outside NFS (mount.nfs between its retries, fio
# itself).
fairq_stall_summary() {	# fairq_stall_summary [N ...]
	local d=/sys/kernel/debug/sunrpc f n t out="" state unread waits p c st procs=""
	for n; do
		procs="$procs c$n:"
		for p in $(ip netns pids "c$n" 2>/dev/null); do
			read -r _ c st _ 2>/dev/null <"/proc/$p/stat" || continue
			procs="$procs $c $st $(cat "/proc/$p/wchan" 2>/dev/null),"
		done
		grep -q '^3;' "/tmp/fio$n" 2>/dev/null && procs="$procs (fio reported)"
		procs="$procs;"
	done
	unread=$(ss -Htn state established '( sport = :2049 )' 2>/dev/null |
		awk '$1 > 0 { printf "%s %s bytes; ", $4, $1 }')
	for f in "$d"/rpc_clnt/*/tasks; do
		t=$(cat "$f" 2>/dev/null)	# debugfs files have no size
		[ -n "$t" ] || continue
		n=$(echo "$t" | wc -l)
		state=$(awk '$1 == "state:" { print $2 }' "${f%/tasks}/xprt/info" 2>/dev/null)
		out="$out clnt $(basename "${f%/tasks}"): $n RPCs (first: $(echo "$t" | head -n 1 | awk '{ $1 = ""; print }' | tr -s ' ')), xprt state ${state:-?};"
	done
	# where the first client task in D waits: the top of its stack
	for f in /proc/[0-9]*/stat; do
		read -r p c st _ <"$f" 2>/dev/null || continue
		[ "$st" = D ] && [ "$c" != "(nfsd)" ] || continue
		waits="$p $c in $(head -n 3 "/proc/$p/stack" 2>/dev/null | awk '{ print $2 }' | tr '\n' ' ')"
		break
	done
	echo "${out:- no RPC in flight;}$procs waiting: ${waits:-no task in D;} unread at nfsd: ${unread:-none;} fairq $(fairq_sched 2>/dev/null), queued: $(awk '/ queued / { for (i = 1; i < NF; i++) if ($i == "queued") q += $(i + 1) } END { print q + 0 }' "$FAIRQ_DEBUGFS/pools" 2>/dev/null), rescues $(cat "$FAIRQ_SYSFS/rescues" 2>/dev/null)"
}

# A CPU that stays busy after a test has ended is a context that spins: an nfsd thread looping
# on a transport it can never take, a worker that never sleeps.  It fails the test, and the
# boot goes no further: every later test would run on what is left of the CPU (and the guests
# beside this one on what is left of the host's), and end with a misleading verdict.
# cpu_busy_jiffies: busy time of every CPU since boot (user, nice, system, irq, softirq), in
# USER_HZ ticks (100 a second)
cpu_busy_jiffies() {
	local _cpu user nice system _idle _iowait irq softirq _rest
	read -r _cpu user nice system _idle _iowait irq softirq _rest </proc/stat
	echo $((user + nice + system + irq + softirq))
}
# task_ticks: "PID TICKS COMM" of every task (utime + stime)
task_ticks() {
	local f
	for f in /proc/[0-9]*/stat; do
		cat "$f" 2>/dev/null
	done | awk '{ c = $0; sub(/^[0-9]+ \(/, "", c); sub(/\) .*/, "", c); gsub(/ /, "_", c); r = $0; sub(/^.*\) /, "", r);
		split(r, a, " "); print $1, a[12] + a[13], c }'
}
# spinning: nothing as soon as one second of the next SPIN_SECS (default 20) keeps less than
# half a CPU busy; else what the busiest tasks are doing (their kernel stacks)
spinning() {
	local n b0 b1
	for ((n = 0; n < ${SPIN_SECS:-20}; n++)); do
		b0=$(cpu_busy_jiffies)
		sleep 1
		b1=$(cpu_busy_jiffies)
		[ $((b1 - b0)) -lt 50 ] && return 0
	done
	local t0=${EPOCHREALTIME/./} t1
	task_ticks | sort -k1,1 >/tmp/ticks0
	sleep 2
	task_ticks | sort -k1,1 >/tmp/ticks1
	t1=${EPOCHREALTIME/./}
	echo "a CPU stayed busy for ${SPIN_SECS:-20} s after the test; the busiest tasks since:"
	# ticks are 10 ms: a task's share of one CPU over the interval, in percent
	join /tmp/ticks0 /tmp/ticks1 | awk -v us=$((t1 - t0)) '{ p = ($4 - $2) * 1e6 / us }
		p >= 10 { printf "%d %s %s\n", p, $1, $3 }' | sort -rn | head -n 4 |
		while read -r pct pid comm; do
			echo "  $comm (pid $pid): $pct% of a CPU, state $(awk '{ print $3 }' /proc/"$pid"/stat 2>/dev/null)"
			sed 's/^/    /' /proc/"$pid"/stack 2>/dev/null | head -n 16
		done
}
