# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the fairqctl tests (sourced after /fairq/lib.sh).

FAIRQ_SCHEMA=/fairq/fairqctl/fairqctl.schema.json
FAIRQ_SCHEMA_CHECK=/fairq/fairqctl/schema-check.py

command -v fairqctl >/dev/null || fail "fairqctl is not installed in the guest"

# fairq_json EXPR: evaluate the Python expression EXPR over the JSON document on stdin (as d).
fairq_json() {
	python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"
}

# fairq_settled_in_flight KEY: the requests in flight of the keys fairqctl shows for KEY (an
# address), once that is 0 or 5 s have passed; "none" if there is no such key.  A count that
# stays above 0 once the key's calls have all ended was lost.
fairq_settled_in_flight() {
	local left
	for _ in 1 2 3 4 5 6; do
		left=$(fairqctl -j shares --key "$1" |
			fairq_json '"none" if not d["keys"] else sum(k["in_flight"] for k in d["keys"])')
		[ "$left" = 0 ] && break
		sleep 1
	done
	echo "$left"
}

# fairq_expect RC PATTERN CMD...: CMD exits with RC and says PATTERN (grep -E) in one stderr line.
fairq_expect() {
	local want=$1 pattern=$2 rc
	shift 2
	"$@" >/tmp/fairq-expect.out 2>/tmp/fairq-expect.err
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want: $(cat /tmp/fairq-expect.err)"
	[ "$(wc -l </tmp/fairq-expect.err)" = 1 ] || fail "'$*' did not say one line: $(cat /tmp/fairq-expect.err)"
	grep -Eq "$pattern" /tmp/fairq-expect.err || fail "'$*' said '$(cat /tmp/fairq-expect.err)', expected /$pattern/"
	log "$* -> $rc: $(cat /tmp/fairq-expect.err)"
}

# fairq_as_nobody CMD...: run CMD without any privilege.
fairq_as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
}

# fairq_validate FILE...: every line of every FILE is a fairqctl -j document valid for the schema.
fairq_validate() {
	python3 "$FAIRQ_SCHEMA_CHECK" "$FAIRQ_SCHEMA" "$@" >/tmp/fairq-schema.out 2>&1 ||
		fail "JSON does not validate: $(tail -n 5 /tmp/fairq-schema.out)"
	log "$(tail -n 1 /tmp/fairq-schema.out)"
}

# fairq_nl_expect PATTERN ARGS...: /fairq/fairq-nl.py ARGS (the requests fairqctl does not make)
# prints PATTERN (grep -E).
fairq_nl_expect() {
	local pattern=$1 out
	shift
	out=$(python3 /fairq/fairq-nl.py "$@" 2>&1)
	echo "$out" | grep -Eq "$pattern" || fail "fairq-nl.py $* said '$out', expected /$pattern/"
	log "fairq-nl.py $*: $out"
}

# fairq_traffic N: some NFSv3 requests from client N (so that fairq picks the service up).
fairq_traffic() {
	fairq_nfs "$1" 3 'dd if=/dev/zero of=f bs=64k count=32 conv=fsync 2>/dev/null && cat f >/dev/null && rm -f f'
}

# fairq_nl_refuse WHY ARGS...: the netlink request fairq-nl.py ARGS is refused, with WHY in
# its reason
fairq_nl_refuse() {
	local why=$1
	shift
	if python3 /fairq/fairq-nl.py "$@" >/tmp/nl.out; then
		fail "'$*' was accepted"
	fi
	grep -q "$why" /tmp/nl.out || fail "'$*': expected '$why', got $(cat /tmp/nl.out)"
}
