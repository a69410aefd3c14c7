#!/bin/bash
# fairqctl's pool numbers are fairq's (the debugfs file) and agree with nfsd's own where they
# overlap (/proc/fs/nfsd/pool_threads, pool_stats); a caller sees its own network namespace
# only, and all of them with -a if privileged; watch redraws on a terminal, prints plain lines
# otherwise, and stops cleanly on SIGINT.
. /fairq/lib.sh
. /fairq/fairqctl-lib.sh
trap 'fairq_set_sched fifo' EXIT

# the same numbers as debugfs, taken while nothing moves (read until two debugfs reads agree);
# a scheduler's own counters (fq's keys) are the pairs debugfs prints after "sched NAME"
agree_with_debugfs() {	# agree_with_debugfs SCHED
	local try
	for try in 1 2 3 4 5; do
		cat "$FAIRQ_DEBUGFS/pools" >/tmp/dbg1
		fairqctl -j pools >/tmp/pools.json || fail "fairqctl -j pools failed"
		cat "$FAIRQ_DEBUGFS/pools" >/tmp/dbg2
		cmp -s /tmp/dbg1 /tmp/dbg2 && break
		sleep 1
	done
	python3 - /tmp/dbg1 /tmp/pools.json "$1" <<'PY' || fail "fairqctl and debugfs disagree under $1"
import json, sys
# a pool line: "serv S pool P threads T queued Q", fairq's counters, "sched NAME", the
# scheduler's own; the "module" line: the module's counters.  Every counter debugfs shows is
# in fairqctl's JSON under its name, whatever it is: a new one needs no change in fairqctl.
dbg, mod = {}, None
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "serv":
        at = f.index("sched")
        d = dict(zip(f[0:at:2], map(int, f[1:at:2])))
        d["sched"] = f[at + 1]
        d["own"] = dict(zip(f[at + 2::2], map(int, f[at + 3::2])))
        dbg[(d["serv"], d["pool"])] = d
    elif f[0] == "module":
        mod = dict(zip(f[1::2], map(int, f[2::2])))
doc = json.load(open(sys.argv[2]))
pools = doc["pools"]
assert pools, "fairqctl shows no pool"
assert len(pools) == len(dbg), (len(pools), len(dbg))
core = None
for p in pools:
    d = dbg[(p["serv"], p["pool"])]
    for k, v in d.items():
        if k not in ("sched", "own"):
            assert p[k] == v, (k, p[k], v)
    core = sorted(k for k in d if k not in ("serv", "pool", "threads", "queued", "sched", "own"))
    assert len(core) >= 8, core
    assert p["sched_counters"] == d["own"], (p["sched_counters"], d["own"])
    assert p["sched"] == d["sched"] == sys.argv[3], (p["sched"], d["sched"])
    assert 0 <= p["threads_idle"] <= p["threads"], p
    if sys.argv[3] == "fq":
        assert p["sched_counters"]["keys"] >= 1, p
assert mod is not None and len(mod) >= 8, mod
for k, v in mod.items():
    assert doc["module"][k] == v, (k, doc["module"].get(k), v)
print("# %s: %d pool(s) agree with debugfs in %s, scheduler counters %s; the module's %s" %
      (sys.argv[3], len(pools), core, pools[0]["sched_counters"], sorted(mod)))
PY
}
# counters_shown SCHED PATTERN: under SCHED with traffic, fairqctl agrees with debugfs and
# fairqctl pools lists the scheduler's own counters as PATTERN (none: no such line)
counters_shown() {
	fairq_set_sched "$1"
	fairq_traffic 1 || fail "NFS traffic failed"
	agree_with_debugfs "$1"
	[ -n "$2" ] || return 0
	fairqctl -e pools >/tmp/pools.txt || fail "fairqctl -e pools failed"
	grep -qE "^ +$1: $2\$" /tmp/pools.txt ||
		fail "fairqctl pools does not list $1's counters: $(cat /tmp/pools.txt)"
}
counters_shown fq 'keys [0-9]+ key_alloc_failures [0-9]+ key_buckets [0-9]+ split_failures [0-9]+ holds [0-9]+ paced [0-9]+ lost_handoffs [0-9]+ handoffs_returned [0-9]+ untracked_threads [0-9]+ unseen_request_ends [0-9]+ cap_overruns [0-9]+ bursts [0-9]+ anticipations [0-9]+ anticipation_hits [0-9]+ hold_skips [0-9]+ turns_overspent [0-9]+ keys_ahead [0-9]+'
counters_shown qfifo ""
# capped's wake cap is its own: its counters come with it, and are no pool member of the core
if fairq_scheds | tr ' ' '\n' | grep -qx capped; then
	counters_shown capped 'waking [0-9]+ overloads_avoided [0-9]+ wakers_expired [0-9]+ cap_waits [0-9]+'
	fairqctl metrics | grep -qE '^fairq_pool_sched_value\{.*scheduler="capped",name="cap_waits"\} [0-9]+$' ||
		fail "fairqctl metrics has no cap_waits of capped: $(fairqctl metrics | grep sched_value)"
	fairq_set_sched qfifo
	fairqctl -j pools >/tmp/pools.json || fail "fairqctl -j pools failed"
fi

# the pool-get do request (fairqctl dumps) answers the same for one pool
# (no process substitution: the guest has no /dev/fd)
read -r serv pool <<<"$(fairq_json '"%d %d" % (d["pools"][0]["serv"], d["pools"][0]["pool"])' </tmp/pools.json)"
python3 /fairq/fairq-nl.py pool-get "$serv" "$pool" >/tmp/one.json || fail "pool-get $serv $pool: $(cat /tmp/one.json)"
python3 - /tmp/pools.json /tmp/one.json <<'PY' || fail "pool-get of one pool disagrees with the dump"
import json, sys
dump, one = json.load(open(sys.argv[1]))["pools"][0], json.load(open(sys.argv[2]))
names = {"serv": "serv-id", "pool": "pool-id", "sched": "sched", "threads": "threads",
         "enqueued": "enqueued", "fed_push": "fed-push", "wakeups": "wakeups", "rescues": "rescues"}
for k, n in names.items():
    assert dump[k] == one[n], (k, dump[k], one)
PY
out=$(ip netns exec c1 python3 /fairq/fairq-nl.py pool-get "$serv" "$pool")
[ "$out" = "errno 2: fairq tracks no such service and pool" ] ||
	fail "a client namespace reads a pool of another namespace: $out"

# threads per pool as nfsd counts them; one pool line in pool_stats per fairq pool
read -r -a kthreads </proc/fs/nfsd/pool_threads
python3 - /tmp/pools.json "${kthreads[@]}" <<'PY' || fail "fairqctl and /proc/fs/nfsd/pool_threads disagree"
import json, sys
pools = json.load(open(sys.argv[1]))["pools"]
want = list(map(int, sys.argv[2:]))
assert [p["threads"] for p in sorted(pools, key=lambda p: p["pool"])] == want, (pools, want)
assert len(json.load(open(sys.argv[1]))["nfsd_pools"]) == len(want)
PY

# under load, what fairq hands to the kernel's queue is counted there too (sockets-enqueued)
fairqctl -j pools >/tmp/before.json
fairq_traffic 2 || fail "NFS traffic failed"
fairqctl -j pools >/tmp/after.json
python3 - /tmp/before.json /tmp/after.json <<'PY' || fail "fairq's hand-offs are not in nfsd's sockets-enqueued"
import json, sys
b, a = (json.load(open(f)) for f in sys.argv[1:3])
fed = lambda d: sum(p["fed_pull"] + p["fed_push"] + p["fed_bypass"] for p in d["pools"])
kq = lambda d: sum(p["sockets_enqueued"] for p in d["nfsd_pools"])
assert fed(a) > fed(b), "no hand-off counted under load"
assert kq(a) - kq(b) >= fed(a) - fed(b), (kq(a) - kq(b), fed(a) - fed(b))
print("# under load: fairq handed over %d, nfsd queued %d" % (fed(a) - fed(b), kq(a) - kq(b)))
PY

# network namespaces: nfsd runs in the initial one
n=$(ip netns exec c1 fairqctl -j pools | fairq_json 'len(d["pools"])')
[ "$n" = 0 ] || fail "a client namespace sees $n nfsd pools of another namespace"
n=$(ip netns exec c1 fairqctl -j -a pools | fairq_json 'len(d["pools"])')
[ "$n" -ge 1 ] || fail "root with -a does not see the initial namespace's pools"
fairq_expect 4 'all-netns needs CAP_NET_ADMIN' fairq_as_nobody fairqctl -a pools
n=$(fairq_as_nobody fairqctl -j pools | fairq_json 'len(d["pools"])')
[ "$n" -ge 1 ] || fail "an unprivileged caller cannot read its own namespace's pools"

# watch: plain lines when piped, redrawn in place on a terminal, clean stop on SIGINT
fairqctl watch -i 0.5 -n 3 | cat >/tmp/watch.txt || fail "watch failed"
[ "$(grep -c ' serv .* pool .* sched qfifo' /tmp/watch.txt)" -ge 3 ] || fail "piped watch: $(cat /tmp/watch.txt)"
grep -q $'\033' /tmp/watch.txt && fail "piped watch wrote terminal escapes"
script -qec "fairqctl watch -i 0.5 -n 2" /dev/null >/tmp/watch.tty || fail "watch on a terminal failed"
grep -q $'\033\\[H' /tmp/watch.tty || fail "watch on a terminal does not redraw in place"
fairqctl watch -i 0.5 >/tmp/watch.int 2>&1 &
pid=$!
sleep 3
kill -INT $pid
wait $pid
rc=$?
[ $rc = 0 ] || fail "watch exited $rc on SIGINT: $(cat /tmp/watch.int)"
fairq_set_sched fifo
fairqctl watch -i 0.5 -n 2 | cat >/tmp/watch-idle.txt || fail "watch under fifo failed"
grep -q 'fairq idle' /tmp/watch-idle.txt || fail "watch under fifo: $(cat /tmp/watch-idle.txt)"
log "watch: $(head -n 1 /tmp/watch.txt)"

# nfsd's own pools are never cut short: 100 of them (a percpu pool mode on 100 CPUs) in a
# pool_stats bound over nfsd's, in a mount namespace of the test's own
{
	echo "# pool packets-arrived sockets-enqueued threads-woken threads-timedout"
	for i in $(seq 0 99); do echo "$i $((i * 7)) $i 0 0"; done
} >/tmp/pool_stats.100
unshare -m sh -c 'mount --bind /tmp/pool_stats.100 /proc/fs/nfsd/pool_stats && fairqctl -j pools &&
	fairqctl pools' >/tmp/pools.100 2>&1 || fail "fairqctl over 100 nfsd pools: $(tail -n 3 /tmp/pools.100)"
n=$(head -n 1 /tmp/pools.100 | fairq_json 'len(d["nfsd_pools"])')
last=$(head -n 1 /tmp/pools.100 | fairq_json 'd["nfsd_pools"][-1]["packets_arrived"]')
[ "$n" = 100 ] && [ "$last" = 693 ] || fail "100 nfsd pools shown as $n, the last with $last packets"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +0 +0$' /tmp/pools.100)" = 100 ] ||
	fail "the text view of 100 nfsd pools: $(tail -n 5 /tmp/pools.100)"
log "100 nfsd pools: all shown"
fairqctl -e pools >/tmp/pools.txt || fail "fairqctl -e pools failed"
grep -Eq '^module: rescues [0-9]+, failsafe_switches [0-9]+, serv_alloc_failures [0-9]+, serv_table_full [0-9]+; v4client bound [0-9]+' /tmp/pools.txt ||
	fail "no line of the module's counters in fairqctl pools: $(tail -n 3 /tmp/pools.txt)"
