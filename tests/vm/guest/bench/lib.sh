# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the benchmark scenarios (sourced in the guest after /fairq/lib.sh).  See
# docs/benchmarks.md.  A scenario writes its raw results under $B_OUT: meta.json, cells.jsonl
# (one JSON object per measured cell, fairq-load's reports inside) and the greedy clients'
# time series; bench_finish prints them as a base64 tarball between BENCH-TGZ markers, which
# tests/bench/run.sh unpacks on the host.  Lines starting with "# " are progress.

B_OUT=${B_OUT:-/tmp/bench/out}
B_SCALE=${B_SCALE:-1}
B_REPS=${B_REPS:-2}
FL=/usr/local/bin/fairq-load
B_EXPORT=$FAIRQ_SERVER:$FAIRQ_EXPORT
GREEDY_PID=""
mkdir -p "$B_OUT"
: >"$B_OUT/cells.jsonl"

# B_TUNE="fq/new_burst=128 ...": scheduler tunables (under /sys/kernel/fairq) for the whole
# run, to measure a setting other than the defaults; meta.json records them as "tune".  A
# scenario that reloads the module applies them again (bench_tune).
bench_tune() {
	local b_tune
	for b_tune in ${B_TUNE:-}; do
		case $b_tune in
		*/*=*) echo "${b_tune#*=}" >"$FAIRQ_SYSFS/${b_tune%%=*}" || fail "B_TUNE: $b_tune refused" ;;
		*) fail "B_TUNE takes SCHEDULER/TUNABLE=VALUE, not '$b_tune'" ;;
		esac
	done
}
bench_tune

# secs S: S scaled by B_SCALE
secs() {
	awk -v s="$1" -v k="$B_SCALE" 'BEGIN { v = s * k; if (v < 0.5) v = 0.5; printf "%g", v }'
}

# the schedulers this kernel offers, fifo first; with B_SCHEDS, only those of them, and
# variants of them as NAME:TUNABLE=VALUE[,TUNABLE=VALUE] (e.g. fq:anticipate_us=3000)
bench_offered() {
	local s v
	echo fifo
	for s in $(fairq_scheds); do
		[ "$s" = fifo ] && continue
		if [ -z "${B_SCHEDS:-}" ] || [[ " $B_SCHEDS " == *" $s "* ]]; then
			echo "$s"
		fi
		for v in ${B_SCHEDS:-}; do
			[[ $v == "$s:"*=* ]] && echo "$v"
		done
	done
}

# fairq_set_sched NAME or NAME:TUNABLE=VALUE,...: a variant's tunables hold only while it runs;
# any switch first puts back the values they had before the first variant changed them.
fairq_set_sched() {
	local name=${1%%:*} kv t f
	for f in /tmp/fairq-tunable-saved.*; do
		[ -e "$f" ] || continue
		t=${f#/tmp/fairq-tunable-saved.}
		cat "$f" >"$FAIRQ_SYSFS/${t//.//}" || fail "restoring $t refused"
	done
	if [ "$name" != "$1" ]; then
		local IFS=,
		for kv in ${1#*:}; do
			t=$name/${kv%%=*}
			[ -e "/tmp/fairq-tunable-saved.${t//\//.}" ] ||
				cat "$FAIRQ_SYSFS/$t" >"/tmp/fairq-tunable-saved.${t//\//.}" || fail "no tunable $t"
			echo "${kv#*=}" >"$FAIRQ_SYSFS/$t" || fail "$t=${kv#*=} refused"
		done
	fi
	echo "$name" >"$FAIRQ_SYSFS/scheduler"
}
bench_scheds() {
	bench_offered
}

# rotated N: the schedulers, rotated by N (repetitions do not always run in the same order).
# (No process substitution in the guest: it has no /dev/fd.)
rotated() {
	local all=($(bench_scheds))
	local n=${#all[@]} i
	for ((i = 0; i < n; i++)); do echo "${all[$(((i + $1) % n))]}"; done
}

bench_meta() {	# bench_meta SCENARIO KEY=VALUE... (numbers or strings)
	local sc=$1 kv first=1
	shift
	{
		printf '{"scenario":%s,"kernel":"%s","abi":"%s","scale":%s,"reps":%s,"schedulers":[' \
			"$sc" "$FAIRQ_KERNEL" "$(uname -r)" "$B_SCALE" "$B_REPS"
		for s in $(bench_scheds); do
			[ $first = 1 ] || printf ','
			printf '"%s"' "$s"
			first=0
		done
		printf '],"cpus":%s,"tune":"%s","clock":"%s"' "$(nproc)" "${B_TUNE:-}" "$FAIRQ_CLOCK"
		for kv in "$@"; do
			case "${kv#*=}" in
			'' | *[!0-9.]*) printf ',"%s":"%s"' "${kv%%=*}" "${kv#*=}" ;;
			*) printf ',"%s":%s' "${kv%%=*}" "${kv#*=}" ;;
			esac
		done
		printf '}\n'
	} >"$B_OUT/meta.json"
}

svctime_on() {	# svctime_on DELAY_US [CLIENTS]
	[ -d /sys/module/fairq_svctime ] || insmod /fairq/extra/fairq_svctime.ko || fail "cannot load the service-time helper"
	echo "${2:-all}" >/sys/module/fairq_svctime/parameters/clients
	echo "$1" >/sys/module/fairq_svctime/parameters/delay_us
}

svctime_off() {
	[ -d /sys/module/fairq_svctime ] || return 0
	echo 0 >/sys/module/fairq_svctime/parameters/delay_us
	rmmod fairq_svctime
}

# greedy_start NAME K W [ARGS...]: client 1 runs K connections of window W until greedy_stop,
# its cumulative replies every 0.25 s in $B_OUT/NAME.series
greedy_start() {
	local name=$1 k=$2 w=$3
	shift 3
	rm -f "$B_OUT/$name.series"
	ip netns exec c1 $FL -j -K "$k" -W "$w" -d 0 --series "$B_OUT/$name.series" --interval 0.25 \
		--label "$name" "$@" "$B_EXPORT" >"$B_OUT/$name.json" 2>"$B_OUT/$name.err" &
	GREEDY_PID=$!
	sleep "$(secs 2)"
	kill -0 "$GREEDY_PID" 2>/dev/null || fail "greedy client $name: $(cat "$B_OUT/$name.err")"
}

greedy_stop() {
	[ -n "$GREEDY_PID" ] || return 0
	kill -INT "$GREEDY_PID" 2>/dev/null
	wait "$GREEDY_PID" || fail "greedy client: $(cat "$B_OUT"/*.err 2>/dev/null | tail -n 3)"
	GREEDY_PID=""
}

# client N ARGS...: fairq-load in client N's namespace, its JSON report on stdout
client() {
	local n=$1
	shift
	ip netns exec "c$n" $FL -j "$@" 2>/tmp/bench-client.err ||
		fail "client $n ($*): $(cat /tmp/bench-client.err)"
}

# cell JSON-FIELDS REPORT-FILE...: one line of cells.jsonl: the fields, then "runs": the reports
cell() {
	local fields=$1 f first=1
	shift
	{
		printf '{%s,"runs":[' "$fields"
		for f in "$@"; do
			[ $first = 1 ] || printf ','
			tr -d '\n' <"$f"
			first=0
		done
		printf ']}\n'
	} >>"$B_OUT/cells.jsonl"
}

# nfsd threads' wakeups and switches (schedstats): "wakeups switches threads" (one awk: a fork
# per thread costs seconds under TCG)
nfsd_sched_snap() {
	local files=() p
	for p in $(pgrep -x nfsd); do files+=("/proc/$p/sched"); done
	awk '$1 == "nr_wakeups" { w += $3 } $1 == "nr_switches" { s += $3 } FNR == 1 { n++ }
	     END { print w + 0, s + 0, n + 0 }' "${files[@]}" 2>/dev/null
}

# Continuous load for live-switched windows (scenarios 4 and 5): load_start NAME CLIENTS K W
# runs fairq-load in clients 1..CLIENTS until load_stop, each with a time series
# $B_OUT/NAME-cN.series; window_begin/window_end SCHED REP FIELDS... measure one window (wall
# clock from $EPOCHREALTIME, /proc/stat read by bash builtins: no fork at the edges but one awk
# for the nfsd threads when schedstats are on) and append it to cells.jsonl.
LOAD_PIDS=()
load_start() {
	local name=$1 n=$2 k=$3 w=$4 i specs=()
	for i in $(seq 1 "$n"); do specs+=("c$i $k $w"); done
	load_start_each "$name" "${specs[@]}"
}

# load_start_each NAME SPEC...: one fairq-load per SPEC, "NETNS K W [CPU [ADDR]]" (K
# connections of window W; pinned to CPU, - for any; from source address ADDR; commas may
# stand for the spaces), until load_stop; their series are NAME-c1... in SPEC order
load_start_each() {
	local name=$1 spec ns k w cpu addr pin bind i=0 p
	shift
	for spec in "$@"; do
		i=$((i + 1))
		read -r ns k w cpu addr <<<"${spec//,/ }"
		pin=()
		[ -z "$cpu" ] || [ "$cpu" = - ] || pin=(taskset -c "$cpu")
		bind=()
		[ -z "$addr" ] || bind=(-b "$addr")
		rm -f "$B_OUT/$name-c$i.series"
		ip netns exec "$ns" "${pin[@]}" $FL -j -K "$k" -W "$w" -d 0 "${bind[@]}" \
			--series "$B_OUT/$name-c$i.series" --interval 0.2 --label "$name-c$i" "$B_EXPORT" \
			>"$B_OUT/$name-c$i.json" 2>"$B_OUT/$name-c$i.err" &
		LOAD_PIDS+=($!)
	done
	LOAD_NAME=$name
	LOAD_N=$i
	sleep "$(secs 2)"
	for p in "${LOAD_PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || fail "load $name: $(cat "$B_OUT/$name"-c*.err)"
	done
}

load_stop() {
	local p
	for p in "${LOAD_PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${LOAD_PIDS[@]}"; do wait "$p" || fail "load $LOAD_NAME: $(cat "$B_OUT/$LOAD_NAME"-c*.err)"; done
	LOAD_PIDS=()
}

# stat_read: W_CTXT, W_BUSY, W_TOTAL from /proc/stat (bash builtins only)
stat_read() {
	local key a rest i
	while read -r key rest; do
		case "$key" in
		cpu)
			read -r -a a <<<"$rest"
			W_TOTAL=0
			for i in "${a[@]}"; do W_TOTAL=$((W_TOTAL + i)); done
			W_BUSY=$((W_TOTAL - a[3] - a[4]))
			;;
		ctxt) W_CTXT=$rest ;;
		esac
	done </proc/stat
}

window_begin() {
	[ -n "${B_SCHEDSTATS:-}" ] && read -r WB_WAKE WB_SW _ <<<"$(nfsd_sched_snap)"
	stat_read
	WB_CTXT=$W_CTXT WB_BUSY=$W_BUSY WB_TOTAL=$W_TOTAL
	WB_WALL=$EPOCHREALTIME
}

window_end() {	# window_end KIND SCHED REP [EXTRA-JSON-FIELDS]
	local wall=$EPOCHREALTIME i series="" extra=${4:+,$4} we=0 sw=0
	stat_read
	if [ -n "${B_SCHEDSTATS:-}" ]; then
		read -r we sw _ <<<"$(nfsd_sched_snap)"
		extra="$extra,\"nfsd_wakeups\":$((we - WB_WAKE)),\"nfsd_switches\":$((sw - WB_SW))"
	fi
	for i in $(seq 1 "$LOAD_N"); do series="$series${series:+,}\"$LOAD_NAME-c$i\""; done
	printf '{"kind":"%s","sched":"%s","rep":%s,"wall_start":%s,"wall_end":%s,"ctxt":%s,"busy_jiffies":%s,"total_jiffies":%s,"series":[%s]%s}\n' \
		"$1" "$2" "$3" "$WB_WALL" "$wall" $((W_CTXT - WB_CTXT)) $((W_BUSY - WB_BUSY)) \
		$((W_TOTAL - WB_TOTAL)) "$series" "$extra" >>"$B_OUT/cells.jsonl"
}

# window_rate: the last window's RPC rate over all load clients (for progress lines).  awk, not
# python: between windows, on a guest whose CPUs the load saturates, parsing the whole of the
# growing series files in python took most of a minute by the end of scenario 5.
window_rate() {
	local c t0 t1 list s files=()
	# the samples after the window's end (0.2 s apart): right after window_end they may not be
	# written yet, more so on the instruction clock, where the shell's steps take no time
	sleep 0.25
	c=$(tail -n 1 "$B_OUT/cells.jsonl")
	t0=${c#*\"wall_start\":} t1=${c#*\"wall_end\":}
	t0=${t0%%,*} t1=${t1%%,*}
	list=${c#*\"series\":[}
	list=${list%%]*}
	for s in ${list//,/ }; do files+=("$B_OUT/${s//\"/}.series"); done
	# replies at t0 and t1, interpolated between the samples around them (as benchcalc.rate)
	awk -F'[:,]' -v t0="$t0" -v t1="$t1" '
	FNR == 1 { pw = ""; files++ }
	$3 != "\"wall\"" || $5 != "\"replies\"" { next }	# a line cut short when a client stopped
	{
		w = $4 + 0
		r = $6 + 0
		if (pw != "" && pw < t0 && t0 <= w) { sum -= pr + (r - pr) * (t0 - pw) / (w - pw); n0++ }
		if (pw != "" && pw < t1 && t1 <= w) { sum += pr + (r - pr) * (t1 - pw) / (w - pw); n1++ }
		pw = w
		pr = r
	}
	END {
		if (n0 != files || n1 != files || t1 <= t0)
			print "? RPC/s (window outside a series)"
		else
			printf "%.0f RPC/s\n", sum / (t1 - t0)
	}' "${files[@]}"
}

# bench_expect N: the scenario measured N cells, or it fails
bench_expect() {
	local got
	got=$(wc -l <"$B_OUT/cells.jsonl")
	[ "$got" = "$1" ] || fail "$got cells measured, $1 expected"
}

# profile_marks: booted with an instruction profile (tests/vm/run --profile: fairq_profile=1
# on the command line), start the mark process and say so (else false).  Each `mark` then
# closes a window of the profile (the plugin writes a snapshot of its counts).  One process,
# started before the windows, executes "xchg %bx,%bx" (which the plugin watches for) each
# time it reads a line, and answers: starting a process for each mark would count its
# start-up in the window it closes.
profile_marks() {
	grep -qw fairq_profile=1 /proc/cmdline || return 1
	mkfifo /tmp/profile.mark /tmp/profile.marked
	python3 -c '
import ctypes, mmap, sys
code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
code.write(b"\x66\x87\xdb\xc3")	# xchg %bx,%bx; ret
run = ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(code)))
with open("/tmp/profile.mark") as cmd, open("/tmp/profile.marked", "w") as ack:
    for line in cmd:
        run()
        ack.write("marked\n")
        ack.flush()
' &
	exec 7>/tmp/profile.mark 8</tmp/profile.marked
}

mark() {
	local answer
	echo mark >&7
	read -r answer <&8 || fail "the mark process is gone"
}

# profile_marks_end: stop the mark process; the guest's text symbols go with the results,
# for mapping the profile (tests/bench/insns.py)
profile_marks_end() {
	exec 7>&- 8<&-
	awk '$2 == "t" || $2 == "T"' /proc/kallsyms >"$B_OUT/kallsyms"
}

bench_finish() {
	greedy_stop
	[ ${#LOAD_PIDS[@]} = 0 ] || load_stop
	echo "{\"rescues\":$(fairq_rescues)}" >"$B_OUT/end.json"
	[ "$(fairq_rescues)" = 0 ] || log "WARNING: the watchdog rescued $(fairq_rescues) transports"
	echo "BENCH-TGZ-BEGIN"
	tar czf - -C "$B_OUT" . | base64 -w 76
	echo "BENCH-TGZ-END"
}

# the value of a JSON path in a file, for progress lines: jq FILE 'd["client"]["ops_per_s"]'
jqv() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
