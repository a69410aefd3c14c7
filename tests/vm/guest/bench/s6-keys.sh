# SPDX-License-Identifier: GPL-2.0-only
# Scenario 6, keys and reports: T=8, D=10 ms (fairq_svctime) as in scenario 1, except (d).
#  (a) Ten clients, each from its own address (secondary addresses on the client namespaces'
#      eth0), of 1, 2, 4, 8, 16, 32, 1, 2, 4, 8 connections of window 8: all backlogged, so
#      each one's max-min fair share is 1/10 (fq keyed by address).  The load runs
#      throughout and the scheduler is switched live under it; each window of B6_SECS measures
#      every client's completed RPCs (their --series), B6_ROUNDS rounds in rotated order.
#      Then, with B6_UNLOAD=1 and fq offered, the same load under fq through `rmmod fairq` and
#      `modprobe fairq` (B6_SECS apart), their times in fair-events.json: what the clients see
#      of an admin's unload.
#  (b) Two subnets under saturation, fq keyed by subnet (/24) and the subnet with fewer
#      connections weighted 4 (fairqctl weight): its share against 4/5 under fq, and what the
#      connection counts give under the others.  The second subnet, 10.98.0.0/24, is on the
#      same bridge: br0 gets 10.98.0.1 so that the server reaches it.
#  (c) Many keys: fq keyed by connection; B6_KEYS connections of NULL calls of window 1 from
#      the client namespaces (at most 4096 per fairq-load), raised in steps, each step waiting
#      until the pools hold that many keys (debugfs).  Per step: the time `fairqctl -j shares`
#      takes (wall, user and system CPU) under the load and with the clients stopped, that its
#      JSON has one key per established connection (ss), and the slab memory per key: with the
#      clients stopped and the server drained, changing fq's key tunable (to 1, then back to 3)
#      frees every key at once (the pools are rebuilt) while every socket stays: the fall of the slab caches'
#      active bytes over the keys freed.  A step the guest's memory cannot take (projected
#      from the previous one) is skipped and recorded as such.
#  (d) `fairqctl watch -i 0.1` overhead: D=0, three clients of 16 connections of window 2 of
#      GETATTR as in scenario 4; per round and scheduler B6_WATCH_PAIRS pairs of windows back
#      to back, one with a watch running (output to /dev/null) and one with it stopped, in
#      alternating order; the cost is the paired fall of the RPC rate.
B6_CONNS=${B6_CONNS:-1 2 4 8 16 32 1 2 4 8}
B6_W=${B6_W:-8}
B6_SUBNET_W=${B6_SUBNET_W:-2 2}		# weighted subnet 10.98.0.0/24: connections per client
B6_SUBNET_O=${B6_SUBNET_O:-8 8 8}	# the other subnet, 10.99.0.0/24
B6_WEIGHT=${B6_WEIGHT:-4}
B6_SECS=$(secs "${B6_SECS:-4}")
B6_SETTLE=$(secs "${B6_SETTLE:-1}")
B6_ROUNDS=${B6_ROUNDS:-$B_REPS}
B6_KEYS=${B6_KEYS:-10000 50000}
B6_KEYS_WAIT=${B6_KEYS_WAIT:-240}	# seconds a step may take to reach its keys
B6_DUMPS=${B6_DUMPS:-5}
B6_DUMP_BUDGET=${B6_DUMP_BUDGET:-40}	# seconds of dumps per step and state, at least one
B6_MEM_FLOOR_MB=${B6_MEM_FLOOR_MB:-256}
B6_WATCH_K=${B6_WATCH_K:-16}
B6_WATCH_W=${B6_WATCH_W:-2}
B6_WATCH_SECS=$(secs "${B6_WATCH_SECS:-1}")
B6_WATCH_SETTLE=$(secs 0.5)
B6_WATCH_PAIRS=${B6_WATCH_PAIRS:-6}
B6_WATCH_ROUNDS=${B6_WATCH_ROUNDS:-$B_REPS}
B6_PARTS=${B6_PARTS:-a b c d}
B6_UNLOAD=${B6_UNLOAD:-1}
D_US=10000
PER_PROC=4000	# connections per fairq-load in (c): its limit is 4096, and file descriptors
FQ_TUNABLES=$FAIRQ_SYSFS/fq

has_part() { case " $B6_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
has_fairq() { bench_scheds | grep -qx fq; }
elapsed() { awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN { printf "%.3f", b - a }'; }
ns_of() { echo $((($1 - 1) % FAIRQ_CLIENTS + 1)); }	# client I's namespace
# slab: active objects times object size over every cache, then the active objects of each
# kmalloc size as SIZE:N,SIZE:N,... (kmalloc-SIZE and CONFIG_RANDOM_KMALLOC_CACHES's
# kmalloc-rnd-NN-SIZE summed)
slab_snap() {
	awk 'NR > 2 { b += $2 * $4 }
	     $1 ~ /^kmalloc-(rnd-[0-9]+-)?[0-9]+$/ { n = split($1, f, "-"); k[f[n]] += $2 }
	     END { printf "%d ", b; sep = ""; for (s in k) { printf "%s%s:%d", sep, s, k[s]; sep = "," } print "" }' \
		/proc/slabinfo
}
# kmalloc_fall BEFORE AFTER: the kmalloc size whose active objects fell most between two
# slab_snap lists, and by how many: "SIZE N" (where a struct fq_key lives, whatever its size)
kmalloc_fall() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, ","); for (i = 1; i <= n; i++) { split(x[i], y, ":"); c[y[1]] = y[2] }
		n = split(b, x, ","); for (i = 1; i <= n; i++) { split(x[i], y, ":"); c[y[1]] -= y[2] }
		best = 0; size = 0; for (s in c) if (c[s] > best) { best = c[s]; size = s }
		print size, best }'
}
meminfo() { awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo; }

# secondary addresses for the clients of (a) and (b); removed at the end
ADDRS=()
add_addr() {	# add_addr NS ADDR/LEN
	ip -n "c$1" addr add "$2" dev eth0 && ADDRS+=("$1 $2")
}
del_addrs() {
	local a
	for a in "${ADDRS[@]}"; do ip -n "c${a% *}" addr del "${a#* }" dev eth0 2>/dev/null; done
	ADDRS=()
	ip addr del 10.98.0.1/24 dev br0 2>/dev/null || true
}

# s6_load_start NAME W SPEC...: one fairq-load per SPEC "NS ADDR K" (K connections of window
# W from ADDR in namespace cNS), the I-th with its series NAME-cI; then window_begin/end and
# load_stop as for load_start
s6_load_start() {
	local name=$1 w=$2 spec ns addr k specs=()
	shift 2
	for spec in "$@"; do
		read -r ns addr k <<<"$spec"
		specs+=("c$ns $k $w - $addr")
	done
	load_start_each "$name" "${specs[@]}"
}

# share_line: the last window's per-client shares, for progress lines
share_line() {
	python3 - "$B_OUT" <<'PY'
import json, sys
sys.path.insert(0, "/fairq/bench")
import benchcalc
out = sys.argv[1]
c = json.loads(open(out + "/cells.jsonl").read().splitlines()[-1])
r = [benchcalc.rate(benchcalc.load_series("%s/%s.series" % (out, s), "wall"), c["wall_start"], c["wall_end"])
     for s in c["series"]]
t = sum(r)
fair = [w / sum(c["weights"]) for w in c["weights"]]
dev = max(abs(x / t / f - 1) for x, f in zip(r, fair))
print("%.0f RPC/s, shares %s %%, max deviation from fair %.0f%%" %
      (t, " ".join("%.1f" % (100 * x / t) for x in r), 100 * dev))
PY
}

json_list() {	# json_list WORD...: [w1,w2,...] (whole numbers, or strings)
	local v out="" q
	for v in "$@"; do
		case "$v" in '' | *[!0-9]*) q="\"$v\"" ;; *) q=$v ;; esac
		out="$out${out:+,}$q"
	done
	echo "[$out]"
}

rpc.nfsd "$FAIRQ_THREADS"
idle0=$(cat "$FQ_TUNABLES/idle_secs" 2>/dev/null || echo 10)
key0=$(cat "$FQ_TUNABLES/key" 2>/dev/null || echo 1)
prefix0=$(cat "$FQ_TUNABLES/prefix4" 2>/dev/null || echo 24)
bench_meta 6 threads="$FAIRQ_THREADS" delay_us=$D_US window="$B6_W" secs="$B6_SECS" settle="$B6_SETTLE" \
	rounds="$B6_ROUNDS" conns="$B6_CONNS" subnet_w="$B6_SUBNET_W" subnet_o="$B6_SUBNET_O" \
	weight="$B6_WEIGHT" keys="$B6_KEYS" dumps="$B6_DUMPS" watch_k="$B6_WATCH_K" \
	watch_w="$B6_WATCH_W" watch_secs="$B6_WATCH_SECS" watch_settle="$B6_WATCH_SETTLE" \
	watch_rounds="$B6_WATCH_ROUNDS" watch_pairs="$B6_WATCH_PAIRS" watch_clients="$FAIRQ_CLIENTS" parts="$B6_PARTS" \
	unload="$B6_UNLOAD"
log "scenario 6: T=$FAIRQ_THREADS D=$((D_US / 1000)) ms, parts {$B6_PARTS}, schedulers: $(bench_scheds | xargs)"
ncells=0

# ---- (a) ten clients, 1 to 32 connections each ----
if has_part a; then
	specs=() addrs=() i=0
	for k in $B6_CONNS; do
		i=$((i + 1))
		add_addr "$(ns_of $i)" "10.99.0.$((100 + i))/24"
		specs+=("$(ns_of $i) 10.99.0.$((100 + i)) $k")
		addrs+=("10.99.0.$((100 + i))")
	done
	has_fairq && { echo 1 >"$FQ_TUNABLES/key"; echo 3600 >"$FQ_TUNABLES/idle_secs"; }
	svctime_on $D_US
	fairq_set_sched fifo
	s6_load_start fair "$B6_W" "${specs[@]}"
	ones=$(json_list $(for _ in $B6_CONNS; do echo 1; done))
	for rep in $(seq 1 "$B6_ROUNDS"); do
		for s in $(rotated "$rep"); do
			fairq_set_sched "$s"
			sleep "$B6_SETTLE"
			window_begin
			sleep "$B6_SECS"
			window_end fair "$s" "$rep" "\"conns\":$(json_list $B6_CONNS),\"addrs\":$(json_list "${addrs[@]}"),\"weights\":$ones"
			ncells=$((ncells + 1))
			log "(a) $s round $rep: $(share_line)"
		done
	done
	if [ "$B6_UNLOAD" = 1 ] && has_fairq; then
		t_fq=$EPOCHREALTIME
		fairq_set_sched fq
		sleep "$B6_SECS"
		t_rmmod=$EPOCHREALTIME
		rmmod fairq || fail "rmmod fairq under (a)'s load failed"
		t_rmmod_done=$EPOCHREALTIME
		sleep "$B6_SECS"
		t_modprobe=$EPOCHREALTIME
		modprobe fairq || fail "modprobe fairq under (a)'s load failed"
		t_modprobe_done=$EPOCHREALTIME
		bench_tune	# a new module starts from the defaults: (b) to (d) measure B_TUNE too
		sleep "$B6_SECS"
		printf '[{"what":"fq","wall":%s},{"what":"rmmod","wall":%s,"wall_end":%s},{"what":"modprobe","wall":%s,"wall_end":%s}]\n' \
			"$t_fq" "$t_rmmod" "$t_rmmod_done" "$t_modprobe" "$t_modprobe_done" >"$B_OUT/fair-events.json"
		log "(a) rmmod under load took $(elapsed "$t_rmmod" "$t_rmmod_done") s, modprobe $(elapsed "$t_modprobe" "$t_modprobe_done") s"
	fi
	fairq_set_sched fifo
	load_stop
	svctime_off
fi

# ---- (b) two subnets weighted 4:1 ----
if has_part b; then
	ip addr replace 10.98.0.1/24 dev br0
	specs=() subnets=() conns=() i=0 j=0
	for k in $B6_SUBNET_W; do
		i=$((i + 1))
		add_addr "$(ns_of $i)" "10.98.0.$((100 + i))/24"
		specs+=("$(ns_of $i) 10.98.0.$((100 + i)) $k")
		subnets+=(10.98.0.0/24)
		conns+=("$k")
	done
	for k in $B6_SUBNET_O; do
		i=$((i + 1))
		j=$((j + 1))
		# (a)'s addresses may still be there: these are others
		add_addr "$(ns_of $i)" "10.99.0.$((120 + j))/24"
		specs+=("$(ns_of $i) 10.99.0.$((120 + j)) $k")
		subnets+=(10.99.0.0/24)
		conns+=("$k")
	done
	weighted=0
	if has_fairq; then
		echo 2 >"$FQ_TUNABLES/key"
		echo 24 >"$FQ_TUNABLES/prefix4"
		echo 3600 >"$FQ_TUNABLES/idle_secs"
		fairq_set_sched fq
		fairqctl weight 10.98.0.0/24 "$B6_WEIGHT" || fail "fairqctl weight 10.98.0.0/24 $B6_WEIGHT refused"
		weighted=1
	fi
	svctime_on $D_US
	fairq_set_sched fifo
	s6_load_start subnet "$B6_W" "${specs[@]}"
	for rep in $(seq 1 "$B6_ROUNDS"); do
		for s in $(rotated "$rep"); do
			fairq_set_sched "$s"
			sleep "$B6_SETTLE"
			window_begin
			sleep "$B6_SECS"
			window_end subnet "$s" "$rep" "\"conns\":$(json_list "${conns[@]}"),\"subnets\":$(json_list "${subnets[@]}"),\"weighted\":\"10.98.0.0/24\",\"weight\":$B6_WEIGHT,\"weight_set\":$weighted"
			ncells=$((ncells + 1))
			log "(b) $s round $rep: $(python3 - "$B_OUT" <<'PY'
import json, sys
sys.path.insert(0, "/fairq/bench")
import benchcalc
out = sys.argv[1]
c = json.loads(open(out + "/cells.jsonl").read().splitlines()[-1])
r = [benchcalc.rate(benchcalc.load_series("%s/%s.series" % (out, s), "wall"), c["wall_start"], c["wall_end"])
     for s in c["series"]]
w = sum(x for x, n in zip(r, c["subnets"]) if n == c["weighted"])
print("%.0f RPC/s, %s share %.1f%%" % (sum(r), c["weighted"], 100 * w / sum(r)))
PY
)"
		done
	done
	fairq_set_sched fifo
	load_stop
	svctime_off
	if [ $weighted = 1 ]; then
		fairq_set_sched fq
		fairqctl weight 10.98.0.0/24 0 || fail "clearing the weight of 10.98.0.0/24 refused"
		fairq_set_sched fifo
	fi
fi
del_addrs

# ---- (c) many keys ----
# dumps STATE TARGET: B6_DUMPS timed `fairqctl -j shares` (within the dump budget), cells of kind dump
dumps() {
	local state=$1 target=$2 i t0 spent=0 out times
	for i in $(seq 1 "$B6_DUMPS"); do
		out=/tmp/s6-shares.json
		t0=$EPOCHREALTIME
		# user and system CPU of the dump (fairqctl, and the kernel's dump under its netlink calls)
		times=$( { TIMEFORMAT='%U %S'; time fairqctl -j shares >"$out" 2>/tmp/s6-shares.err; } 2>&1) ||
			fail "fairqctl -j shares: $(cat /tmp/s6-shares.err)"
		wall=$(elapsed "$t0")
		keys_now=$(fairq_pool_sum keys)
		# the JSON against the server's established connections, as fq keys them
		ss -Htn state established '( sport = :2049 )' | awk '{ print $4 }' >/tmp/s6-conns
		check=$(python3 - "$out" /tmp/s6-conns <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = [k["key"] for k in d["keys"] if k["type"] == "conn"]
conns = {l.strip() for l in open(sys.argv[2]) if l.strip()}
print(len(d["keys"]), len(keys) - len(set(keys)), len(conns - set(keys)), len(set(keys) - conns), len(conns),
      len(open(sys.argv[1]).read()))
PY
) || fail "fairqctl -j shares printed no JSON"
		read -r jkeys dup missing extra nconns bytes <<<"$check"
		read -r user sys <<<"$times"
		echo "{\"kind\":\"dump\",\"sched\":\"fq\",\"target\":$target,\"state\":\"$state\",\"n\":$i,\"dump_start\":$t0,\"wall_s\":$wall,\"user_s\":$user,\"sys_s\":$sys,\"json_keys\":$jkeys,\"debugfs_keys\":$keys_now,\"duplicates\":$dup,\"conns\":$nconns,\"conns_missing\":$missing,\"keys_not_conns\":$extra,\"json_bytes\":$bytes}" >>"$B_OUT/cells.jsonl"
		ncells=$((ncells + 1))
		log "(c) $target $state dump $i: ${wall}s (user $user, sys $sys), $jkeys keys in the JSON, $missing of $nconns connections missing, $dup duplicates"
		spent=$(awk -v a="$spent" -v b="$wall" 'BEGIN { print a + b }')
		awk -v a="$spent" -v b="$B6_DUMP_BUDGET" 'BEGIN { exit !(a > b) }' && break
	done
}

# wait until nothing is queued: the stopped clients' last calls are served (at D=0)
drained() {
	local n
	for n in $(seq 1 600); do
		[ "$(fairq_pool_sum queued)" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

if has_part c && has_fairq; then
	max=0
	for t in $B6_KEYS; do [ "$t" -gt "$max" ] && max=$t; done
	maxconn0=$(cat /proc/fs/nfsd/max_connections)
	# nfsd closes the oldest connections beyond max_connections (default (threads + 3) * 20),
	# and takes the limit when it starts
	t0=$EPOCHREALTIME
	fairq_nfsd_down
	echo $((max + 1000)) >/proc/fs/nfsd/max_connections
	# thousands of connections arrive at once while the emulated server accepts slowly: room
	# for them in the listener's queues (nfsd's listen backlog is capped by somaxconn when it
	# starts), or their SYNs are dropped until the clients give up
	somaxconn0=$(sysctl -n net.core.somaxconn)
	synbacklog0=$(sysctl -n net.ipv4.tcp_max_syn_backlog)
	sysctl -qw net.core.somaxconn=65535 net.ipv4.tcp_max_syn_backlog=65535
	fairq_nfsd_up "$FAIRQ_THREADS"
	log "(c) nfsd restarted with max_connections $(cat /proc/fs/nfsd/max_connections) in $(elapsed "$t0") s"
	ulimit -n $((PER_PROC + 64))
	# a tick every 0.2 s: a gap of a second or more in it is a stall of the emulation
	# (read -t on a FIFO nobody writes: no fork per tick, which a loaded guest would delay)
	rm -f /tmp/s6-tick
	mkfifo /tmp/s6-tick
	(exec 3<>/tmp/s6-tick
	while :; do
		echo "{\"t\":$EPOCHREALTIME,\"wall\":$EPOCHREALTIME,\"replies\":0}"
		read -r -t 0.2 -u 3 _
	done) >"$B_OUT/keys-ticks.series" &
	ticker=$!
	echo 3 >"$FQ_TUNABLES/key"
	echo 3600 >"$FQ_TUNABLES/idle_secs"
	fairq_set_sched fq
	svctime_on $D_US
	KPIDS=()
	opened=0 proc=0
	mem0=$(meminfo MemAvailable)
	per_conn_kb=0
	for target in $(echo $B6_KEYS | tr ' ' '\n' | sort -n); do
		if [ "$target" -le "$opened" ]; then
			echo "{\"kind\":\"keys\",\"sched\":\"fq\",\"target\":$target,\"skipped\":\"$opened connections are open already\"}" >>"$B_OUT/cells.jsonl"
			ncells=$((ncells + 1))
			continue
		fi
		avail=$(meminfo MemAvailable)
		if [ "$opened" -gt 0 ]; then
			per_conn_kb=$(((mem0 - avail) / opened + 1))
			need=$(((target - opened) * per_conn_kb / 1024))
			if [ $((avail / 1024 - need)) -lt "$B6_MEM_FLOOR_MB" ]; then
				echo "{\"kind\":\"keys\",\"sched\":\"fq\",\"target\":$target,\"skipped\":\"memory: $((target - opened)) more connections at $per_conn_kb kB each need $need MB, $((avail / 1024)) MB available\"}" >>"$B_OUT/cells.jsonl"
				ncells=$((ncells + 1))
				log "(c) $target connections skipped: $need MB more needed, $((avail / 1024)) MB available"
				continue
			fi
		fi
		t0=$EPOCHREALTIME
		slab0=$(slab_snap)
		# the stopped clients of the last step run again, at D while the new ones connect
		[ ${#KPIDS[@]} = 0 ] || kill -CONT "${KPIDS[@]}"
		while [ "$opened" -lt "$target" ]; do
			k=$((target - opened))
			[ "$k" -gt $PER_PROC ] && k=$PER_PROC
			proc=$((proc + 1))
			ip netns exec "c$(ns_of $proc)" $FL -j -O null -K "$k" -W 1 -d 0 --timeout 120 \
				--label "keys-$proc" "$FAIRQ_SERVER" >"/tmp/s6-keys-$proc.json" 2>"/tmp/s6-keys-$proc.err" &
			KPIDS+=($!)
			opened=$((opened + k))
		done
		error=""
		for n in $(seq 1 $((B6_KEYS_WAIT * 2))); do
			sleep 0.5
			keys=$(fairq_pool_sum keys)
			[ "$keys" -ge "$target" ] && break
			for p in "${KPIDS[@]}"; do
				kill -0 "$p" 2>/dev/null || error="a load client exited: $(cat /tmp/s6-keys-*.err | sort | uniq -c | head -n 3 | xargs)"
			done
			[ -z "$error" ] || break
			[ $((n % 20)) = 0 ] && log "(c) $target: $(elapsed "$t0") s, $keys keys, $(ss -Htn state established '( sport = :2049 )' | wc -l) connections"
		done
		setup=$(elapsed "$t0")
		keys=$(fairq_pool_sum keys)
		[ "$keys" -ge "$target" ] || error=${error:-"$keys keys after ${setup} s"}
		slab1=$(slab_snap)
		buckets=$(fairq_pool_sum key_buckets)
		avail1=$(meminfo MemAvailable)
		log "(c) $target connections: $keys keys in $buckets buckets after $setup s${error:+ ($error)}, MemAvailable $((avail1 / 1024)) MB"
		[ -n "$error" ] || dumps busy "$target"
		# stop the clients with nothing left at the server: their calls served at D=0
		echo 0 >/sys/module/fairq_svctime/parameters/delay_us
		kill -STOP "${KPIDS[@]}"
		drained || error=${error:-"the server did not drain"}
		sleep 0.5
		[ -n "$error" ] || dumps idle "$target"
		# every key freed at once (the pools are rebuilt), every socket kept
		sleep 0.5
		k0=$(fairq_pool_sum keys)
		avail2=$(meminfo MemAvailable)
		read -r sb0 kc0 <<<"$(slab_snap)"
		slabkb0=$(meminfo Slab)
		# another key first: a write of the value a tunable has changes nothing
		echo 1 >"$FQ_TUNABLES/key"
		read -r sb1 kc1 <<<"$(slab_snap)"
		slabkb1=$(meminfo Slab)
		k1=$(fairq_pool_sum keys)
		echo 3 >"$FQ_TUNABLES/key"
		freed=$((k0 - k1))
		read -r kcache kfell <<<"$(kmalloc_fall "$kc0" "$kc1")"
		[ "$k0" -gt 0 ] && [ "$freed" = 0 ] && error=${error:-"changing the key freed no key"}
		echo "{\"kind\":\"keys\",\"sched\":\"fq\",\"target\":$target,\"connections\":$opened,\"processes\":$proc,\"keys\":$keys,\"key_buckets\":$buckets,\"setup_s\":$setup,\"error\":\"$error\",\"mem_available_kb_before\":$mem0,\"mem_available_kb\":$avail1,\"mem_available_kb_stopped\":$avail2,\"slab_bytes_at_start\":${slab0% *},\"slab_bytes_at_keys\":${slab1% *},\"keys_before_free\":$k0,\"keys_after_free\":$k1,\"slab_bytes_freed\":$((sb0 - sb1)),\"kmalloc_key_size\":$kcache,\"kmalloc_key_freed\":$kfell,\"slab_kb_freed\":$((slabkb0 - slabkb1))}" >>"$B_OUT/cells.jsonl"
		ncells=$((ncells + 1))
		log "(c) $target: freeing $freed keys freed $((sb0 - sb1)) slab bytes ($((freed ? (sb0 - sb1) / freed : 0)) per key), kmalloc-$kcache objects $kfell"
		echo $D_US >/sys/module/fairq_svctime/parameters/delay_us
	done
	# the end: calls in flight served at D=0, then every client closes its connections
	t0=$EPOCHREALTIME
	echo 0 >/sys/module/fairq_svctime/parameters/delay_us
	kill -CONT "${KPIDS[@]}"
	kill -INT "${KPIDS[@]}"
	for p in "${KPIDS[@]}"; do wait "$p" || log "(c) a load client ended badly: $(cat /tmp/s6-keys-*.err | sort | uniq -c | head -n 3 | xargs)"; done
	log "(c) clients stopped in $(elapsed "$t0") s"
	KPIDS=()
	kill "$ticker"
	wait "$ticker" 2>/dev/null
	svctime_off
	fairq_set_sched fifo
	echo "$key0" >"$FQ_TUNABLES/key"
	t0=$EPOCHREALTIME
	fairq_nfsd_down
	echo "$maxconn0" >/proc/fs/nfsd/max_connections
	sysctl -qw net.core.somaxconn="$somaxconn0" net.ipv4.tcp_max_syn_backlog="$synbacklog0"
	fairq_nfsd_up "$FAIRQ_THREADS"
	log "(c) nfsd restarted with max_connections $(cat /proc/fs/nfsd/max_connections) in $(elapsed "$t0") s"
elif has_part c; then
	log "(c) skipped: no keyed scheduler (fq) on this kernel"
fi

# ---- (d) the cost of fairqctl watch -i 0.1 ----
# One watch runs throughout, stopped (SIGSTOP) in the windows without it: the windows with it
# pay no start-up, and windows can follow each other at once.  Pairs alternate their order
# (with, without, without, with, ...) so that a steady drift of the emulation's speed cancels.
if has_part d; then
	svctime_off
	load_start watchload "$FAIRQ_CLIENTS" "$B6_WATCH_K" "$B6_WATCH_W"
	fairqctl watch -i 0.1 >/dev/null 2>/tmp/s6-watch.err &
	wpid=$!
	kill -STOP "$wpid"
	for rep in $(seq 1 "$B6_WATCH_ROUNDS"); do
		for s in $(rotated "$rep"); do
			fairq_set_sched "$s"
			sleep "$B6_WATCH_SETTLE"
			for pair in $(seq 1 "$B6_WATCH_PAIRS"); do
				order="1 0"
				[ $(((pair + rep) % 2)) = 0 ] && order="0 1"
				for on in $order; do
					if [ "$on" = 1 ]; then kill -CONT "$wpid"; else kill -STOP "$wpid"; fi
					read -r -a st0 </proc/$wpid/stat || fail "fairqctl watch died: $(cat /tmp/s6-watch.err)"
					window_begin
					sleep "$B6_WATCH_SECS"
					read -r -a st1 </proc/$wpid/stat || fail "fairqctl watch died: $(cat /tmp/s6-watch.err)"
					# utime and stime (fields 14 and 15) in USER_HZ ticks
					window_end watch "$s" "$rep" "\"pair\":$pair,\"watch\":$on,\"watch_utime\":$((st1[13] - st0[13])),\"watch_stime\":$((st1[14] - st0[14]))"
					ncells=$((ncells + 1))
				done
			done
			kill -STOP "$wpid"
			log "(d) $s round $rep: $(python3 - "$B_OUT" "$B6_WATCH_PAIRS" <<'PY'
import json, sys
sys.path.insert(0, "/fairq/bench")
import benchcalc
out, n = sys.argv[1], int(sys.argv[2])
cells = [json.loads(l) for l in open(out + "/cells.jsonl").read().splitlines()[-2 * n:]]
r = {}
for c in cells:
    r[(c["pair"], c["watch"])] = sum(benchcalc.rate(benchcalc.load_series("%s/%s.series" % (out, s), "wall"),
                                                    c["wall_start"], c["wall_end"]) for s in c["series"])
on = sum(v for (p, w), v in r.items() if w)
off = sum(v for (p, w), v in r.items() if not w)
print("%.0f RPC/s with the watch, %.0f without: %+.1f%%" % (on / n, off / n, 100 * (on / off - 1)))
PY
)"
		done
	done
	kill -CONT "$wpid"
	kill -INT "$wpid"
	wait "$wpid" || fail "fairqctl watch: $(cat /tmp/s6-watch.err)"
	fairq_set_sched fifo
	load_stop
fi

echo "$idle0" >"$FQ_TUNABLES/idle_secs" 2>/dev/null || true
echo "$key0" >"$FQ_TUNABLES/key" 2>/dev/null || true
echo "$prefix0" >"$FQ_TUNABLES/prefix4" 2>/dev/null || true
# every window of (a), (b) and (d), and one record per step of (c) (its dumps vary in number)
nsched=$(bench_scheds | wc -l)
want=0
has_part a && want=$((want + B6_ROUNDS * nsched))
has_part b && want=$((want + B6_ROUNDS * nsched))
has_part d && want=$((want + B6_WATCH_ROUNDS * nsched * B6_WATCH_PAIRS * 2))
has_part c && has_fairq && want=$((want + $(echo $B6_KEYS | wc -w)))
[ "$(grep -vc '"kind":"dump"' "$B_OUT/cells.jsonl")" = "$want" ] ||
	fail "$(grep -vc '"kind":"dump"' "$B_OUT/cells.jsonl") cells measured, $want expected"
bench_expect "$ncells"
