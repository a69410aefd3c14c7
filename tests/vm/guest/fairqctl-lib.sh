# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the fairqctl tests (sourced after /fairq/lib.sh).

FQ_SCHEMA=/fairq/fairqctl/fairqctl.schema.json
FQ_SCHEMA_CHECK=/fairq/fairqctl/schema-check.py

command -v fairqctl >/dev/null || fail "fairqctl is not installed in the guest"

# fq_json EXPR: evaluate the Python expression EXPR over the JSON document on stdin (as d).
fq_json() {
	python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"
}

# fq_expect RC PATTERN CMD...: CMD exits with RC and says PATTERN (grep -E) in one stderr line.
fq_expect() {
	local want=$1 pattern=$2 rc
	shift 2
	"$@" >/tmp/fq-expect.out 2>/tmp/fq-expect.err
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want: $(cat /tmp/fq-expect.err)"
	[ "$(wc -l </tmp/fq-expect.err)" = 1 ] || fail "'$*' did not say one line: $(cat /tmp/fq-expect.err)"
	grep -Eq "$pattern" /tmp/fq-expect.err || fail "'$*' said '$(cat /tmp/fq-expect.err)', expected /$pattern/"
	log "$* -> $rc: $(cat /tmp/fq-expect.err)"
}

# fq_as_nobody CMD...: run CMD without any privilege.
fq_as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
}

# fq_validate FILE...: every line of every FILE is a fairqctl -j document valid for the schema.
fq_validate() {
	python3 "$FQ_SCHEMA_CHECK" "$FQ_SCHEMA" "$@" >/tmp/fq-schema.out 2>&1 ||
		fail "JSON does not validate: $(tail -n 5 /tmp/fq-schema.out)"
	log "$(tail -n 1 /tmp/fq-schema.out)"
}

# fq_nl_expect PATTERN ARGS...: /fairq/fairq-nl.py ARGS (the requests fairqctl does not make)
# prints PATTERN (grep -E).
fq_nl_expect() {
	local pattern=$1 out
	shift
	out=$(python3 /fairq/fairq-nl.py "$@" 2>&1)
	echo "$out" | grep -Eq "$pattern" || fail "fairq-nl.py $* said '$out', expected /$pattern/"
	log "fairq-nl.py $*: $out"
}

# fq_traffic N: some NFSv3 requests from client N (so that fairq picks the service up).
fq_traffic() {
	fq_nfs "$1" 3 'dd if=/dev/zero of=f bs=64k count=32 conv=fsync 2>/dev/null && cat f >/dev/null && rm -f f'
}
