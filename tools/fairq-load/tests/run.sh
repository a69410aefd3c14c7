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
expect 2 "--forge-sequence: 'abc' is not random or a session id of 32 hex digits" \
	--forge-sequence abc -O null 127.0.0.1
expect 2 "--forge-sequence: '00112233445566778899aabbccddeeff0'" \
	--forge-sequence 00112233445566778899aabbccddeeff0 -O null 127.0.0.1
expect 2 "--forge-sequence: '00112233445566778899aabbccddeef'" \
	--forge-sequence 00112233445566778899aabbccddeef -O null 127.0.0.1
expect 2 "--forge-sequence: '0011223344556677 8899aabbccddeeff'" \
	--forge-sequence "0011223344556677 8899aabbccddeeff" -O null 127.0.0.1
expect 2 "--forge-sequence: '00112233445566778899aabbccddeefg'" \
	--forge-sequence 00112233445566778899aabbccddeefg -O null 127.0.0.1
expect 2 "--forge-sequence: ''" --forge-sequence "" -O null 127.0.0.1
expect 2 "--forge-sequence is for an NFSv3 load" --forge-sequence random -p 4.1 127.0.0.1
expect 2 "--forge-sequence is for an NFSv3 load" -p nfs4.1 -O null \
	--forge-sequence 00112233445566778899aabbccddeeff 127.0.0.1
expect 2 "--forge-repeat needs --forge-sequence" --forge-repeat 2 -O null 127.0.0.1
expect 2 "--forge-repeat: '0'" --forge-repeat 0 --forge-sequence random -O null 127.0.0.1
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

	# a hostile client: a forged SEQUENCE (random session ids) on each connection first,
	# refused with NFS4ERR_BADSESSION, then the NFSv3 load on those same connections
	start_fake --seq-log "$tmp/seqlog"
	srv=(--port "$nport" --mount-port "$mport" 127.0.0.1:/export)
	: >"$tmp/seqlog"
	expect 0 '^forged SEQUENCE: 6 sent, 6 refused \(statuses: 10052 x6\), 0 accepted$' \
		-K 3 -n 300 --forge-sequence random --forge-repeat 2 "${srv[@]}"
	grep -Eq '^all +300 ' "$tmp/out" && ok || ko "the NFSv3 load after the forged SEQUENCEs (text)"
	: >"$tmp/seqlog"
	expect 0 '"forged_sequence":\{"sent":6,"refused":6,"accepted":0,"statuses":\{"10052":6\}\}' \
		-j -K 3 -n 300 --forge-sequence random --forge-repeat 2 "${srv[@]}"
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
log = [l.split() for l in open(sys.argv[2])]
assert d["client"]["forged_sequence"] == {"sent": 6, "refused": 6, "accepted": 0,
	"statuses": {"10052": 6}}, d["client"]
assert d["client"]["ops"] == 300 and d["calls_sent"] == 300 and d["replies"] == 300, d
assert len(log) == 6, log
# each connection: two SEQUENCEs before anything else, fresh random session ids, sequence 1,
# slot 0, highest slot 0, not cached, minorversion 1, an empty tag, one op
assert sorted(l[1] for l in log) == ["0", "0", "0", "1", "1", "1"], log
assert len({l[2] for l in log}) == 6 and all(len(l[2]) == 32 for l in log), log
assert all(l[3:] == ["1", "0", "0", "0", "1", "0", "1"] for l in log), log
# ... and then its NFSv3 load
conns = {c["local"]: c["ops"] for c in d["per_connection"]}
assert set(conns) == {l[0] for l in log}, (conns, log)
assert all(ops > 0 for ops in conns.values()), conns' "$tmp/out" "$tmp/seqlog"; then ok; else
		ko "JSON and the fake server's log of the random forged SEQUENCEs"
	fi
	kill "$fake"
	wait "$fake" 2>/dev/null

	# a victim's session id, refused in two ways then accepted, in turn
	start_fake --seq-log "$tmp/seqlog" --sequence-status 10052,10063,0
	: >"$tmp/seqlog"
	expect 0 '^forged SEQUENCE: 6 sent, 4 refused \(statuses: 10052 x2, 10063 x2\), 2 accepted$' \
		-O null -K 2 -n 100 --forge-sequence 00112233445566778899AABBccddeeff --forge-repeat 3 \
		--port "$nport" 127.0.0.1
	if [ "$(grep -c ' 00112233445566778899aabbccddeeff 1 0 0 0 1 0 1$' "$tmp/seqlog")" = 6 ]; then ok; else
		ko "the session id given is the one sent: $(cat "$tmp/seqlog")"
	fi
	expect 0 '"forged_sequence":\{"sent":6,"refused":4,"accepted":2,"statuses":\{"10052":2,"10063":2\}\}' \
		-j -O null -K 2 -n 100 --forge-sequence 00112233445566778899aabbccddeeff --forge-repeat 3 \
		--port "$nport" 127.0.0.1
	grep -q '"ops":100,' "$tmp/out" && ok || ko "the NFSv3 load after the forged SEQUENCEs (JSON)"
	kill "$fake"
	wait "$fake" 2>/dev/null

	# a reconnected connection is forged again before its calls are sent again
	start_fake --close-after 50
	expect 0 '"replies":1000,"reconnects":[1-9]' -j -O null -K 2 -W 4 -n 1000 \
		--forge-sequence random --port "$nport" 127.0.0.1
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["client"]["forged_sequence"]
assert f["sent"] == 2 + d["reconnects"] == f["refused"] == f["statuses"]["10052"], d' "$tmp/out"; then ok; else
		ko "forged SEQUENCEs after reconnects"
	fi
	kill "$fake"
	wait "$fake" 2>/dev/null

	# an RPC-level failure of a forged SEQUENCE is fatal: a server without NFSv4
	start_fake --no-v4
	expect 1 '^fairq-load: connection 0 \(127\.0\.0\.1:[0-9]+\): forged SEQUENCE: program version not supported' \
		-O null -n 10 --forge-sequence random --port "$nport" 127.0.0.1
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
