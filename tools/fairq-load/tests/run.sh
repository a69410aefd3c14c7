#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fairq-load host tests: the wire-code unit tests, then the command line against no server
# and against a fake NFSv3 server (tests/fake_server.py).  Prints "N passed, N failed".
# usage: tests/run.sh TEST_XDR FAIRQ_LOAD
set -u
unit=${1:?usage: run.sh TEST_XDR FAIRQ_LOAD}
fl=${2:?usage: run.sh TEST_XDR FAIRQ_LOAD}
here=$(cd "$(dirname "$0")" && pwd)
passed=0
failed=0
tmp=$(mktemp -d)
fake=""
cleanup() {
	[ -n "$fake" ] && kill "$fake" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# unit tests: their own count
out=$("$unit")
echo "$out" | grep -v ' passed, .* failed$'
read -r p _ f _ <<<"$(echo "$out" | tail -n1)"
passed=$((passed + p))
failed=$((failed + f))

ok() { passed=$((passed + 1)); }
ko() {
	failed=$((failed + 1))
	echo "FAIL: $*"
	sed 's/^/    /' "$tmp/err" "$tmp/out" 2>/dev/null | head -n 20
}

# expect RC PATTERN ARGS...: exit code RC and PATTERN (grep -E) in stderr+stdout
expect() {
	local rc=$1 pat=$2 got
	shift 2
	timeout 60 "$fl" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$rc" ]; then
		ko "fairq-load $*: exit $got, wanted $rc"
	elif ! cat "$tmp/err" "$tmp/out" | grep -Eq -- "$pat"; then
		ko "fairq-load $*: no '$pat' in the output"
	else
		ok
	fi
}

# usage errors: exit 2 with a reason
expect 2 'no server given'
expect 2 "unknown option '--frobnicate'" --frobnicate 127.0.0.1
expect 2 "unknown option '-z'" -z 127.0.0.1
expect 2 "needs a value" 127.0.0.1 -K
expect 2 "--connections: '0'" -K 0 127.0.0.1
expect 2 "--connections: 'x'" -K x 127.0.0.1
expect 2 "--window: '5000'" -W 5000 127.0.0.1
expect 2 "--proto: 'nfs5'" -p nfs5 127.0.0.1
expect 2 "--op: 'read'" -O read 127.0.0.1
expect 2 "--duration: '-1'" -d -1 127.0.0.1
expect 2 "needs the export" 127.0.0.1
expect 2 "must start with '/'" 127.0.0.1:srv
expect 2 "do not go together" -B 4 -n 10 -O null 127.0.0.1
expect 2 "one server only" -O null 127.0.0.1 127.0.0.2
expect 2 "--v4-conn: 'maybe'" --v4-conn maybe 127.0.0.1
expect 0 '^usage: fairq-load' --help
expect 0 '^fairq-load ' --version

# unreachable servers and bad addresses: exit 1 with a reason
expect 1 'cannot connect to 127.0.0.1:1: Connection refused' -O null --port 1 127.0.0.1
expect 1 "server 'no-such-host.invalid'" -O null no-such-host.invalid
expect 1 'rpcbind: cannot connect' --timeout 2 127.0.0.1:/x -O getattr
expect 1 'cannot bind to 192.0.2.7' -O null -b 192.0.2.7 --port 1 127.0.0.1
expect 1 'source address' -O null -b not-an-address 127.0.0.1

# start_fake ARGS...: a fake server (tests/fake_server.py); its ports in nport and mport
start_fake() {
	rm -f "$tmp/ports"
	python3 "$here/fake_server.py" "$@" >"$tmp/ports" &
	fake=$!
	nport=""
	for _ in $(seq 1 50); do
		[ -s "$tmp/ports" ] && read -r nport mport <"$tmp/ports" && [ -n "$mport" ] && break
		sleep 0.1
	done
}

# against the fake server
start_fake
if [ -z "${nport:-}" ]; then
	ko "the fake server did not start"
else
	srv=(--port "$nport" --mount-port "$mport" 127.0.0.1:/export)
	expect 0 '"ops":1000,' -j -K 4 -W 4 -n 1000 "${srv[@]}"
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert d["calls_sent"] == 1000 and d["replies"] == 1000, d
assert len(d["per_connection"]) == 4 and sum(c["ops"] for c in d["per_connection"]) == 1000
assert d["client"]["latency_us"]["count"] == 1000
assert all(c["local"].startswith("127.0.0.1:") for c in d["per_connection"])' "$tmp/out"; then ok; else
		ko "JSON of the fixed-count run"
	fi
	expect 0 '"ops":200,' -j -O null -K 2 -n 200 "${srv[@]}"
	expect 0 '^all ' -O null -K 3 -W 2 -d 1 "${srv[@]}"
	expect 0 'bursts of 8, idle 20 ms: [1-9][0-9]* completed' -B 8 -I 20 -K 2 -d 1 "${srv[@]}"
	expect 0 '"bursts":\{"count":[1-9]' -j -B 16 -I 10 -d 1 -w 0.3 "${srv[@]}"
	: >"$tmp/series"
	expect 0 '"ops":' -j -K 2 -d 1 --series "$tmp/series" --interval 0.2 "${srv[@]}"
	if [ "$(wc -l <"$tmp/series")" -ge 5 ] &&
		python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/series"; then ok; else
		ko "--series: $(wc -l <"$tmp/series") lines"
	fi
	# One SIGINT ends the run early, with a report, exit 0 (a second one aborts).  Not sent
	# with timeout(1): it signals both the command and its process group, so the command can
	# get two, and did once under load.
	"$fl" -j -O null -d 30 "${srv[@]}" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep 1
	kill -INT "$pid"
	wait "$pid"
	if [ $? = 0 ] && grep -q '"ops":' "$tmp/out"; then ok; else ko "SIGINT ends the run with a report"; fi
	# Time spent stopped is not a server that stopped answering: after SIGCONT the wait for a
	# reply starts over (scenario 6 stops its clients for minutes).
	"$fl" -j -O null -d 0 --timeout 1 "${srv[@]}" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep 1
	kill -STOP "$pid"
	sleep 2.5
	kill -CONT "$pid"
	sleep 1.5
	kill -INT "$pid"
	wait "$pid"
	if [ $? = 0 ] && grep -q '"ops":' "$tmp/out"; then ok; else
		ko "stopped for longer than --timeout, then continued: $(cat "$tmp/err")"
	fi
	kill "$fake"
	wait "$fake" 2>/dev/null

	start_fake --fail-getattr 13
	expect 1 'NFS3ERR_ACCES \(the export may require a reserved source port' \
		-n 10 --port "$nport" --mount-port "$mport" 127.0.0.1:/export
	kill "$fake"
	wait "$fake" 2>/dev/null

	# the server closes connections: reconnect, send the outstanding calls again, finish
	start_fake --close-after 50
	expect 0 '"replies":1000,"reconnects":[1-9]' -j -O null -K 2 -W 4 -n 1000 --port "$nport" 127.0.0.1
	grep -Eq 'warning: connection .*(closed|reset) by the server.*reconnecting' "$tmp/err" && ok ||
		ko "a reconnect is reported on stderr"
	kill "$fake"
	wait "$fake" 2>/dev/null

	# ... but not forever: three closes in a row with no reply
	start_fake --close-after 0
	expect 1 '(closed|reset) by the server .* three times in a row without a reply' -O null -d 2 --port "$nport" 127.0.0.1
	kill "$fake"
	wait "$fake" 2>/dev/null

	# "try again later" is not an error
	start_fake --jukebox 10
	expect 0 '"delayed":[1-9]' -j -n 200 --port "$nport" --mount-port "$mport" 127.0.0.1:/export
	kill "$fake"
	wait "$fake" 2>/dev/null

	start_fake --delay-ms 3000
	expect 1 'no reply from the server for 1 s' -O null -d 5 --timeout 1 --port "$nport" 127.0.0.1
	kill "$fake"
	wait "$fake" 2>/dev/null
	fake=""
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
