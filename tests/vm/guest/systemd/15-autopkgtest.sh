#!/bin/bash
# The packages' autopkgtests (debian/tests), run on the installed packages as autopkgtest's
# runner would on a machine testbed (their Restrictions: needs-root, isolation-machine): each
# test as root from a fresh AUTOPKGTEST_TMP, stderr allowed.  They expect a fresh install, so
# the admin's fairq.conf steps aside for the shipped one and fairq is unloaded first; after,
# the admin's file is back and fairq.service applies it again for the tests that follow.
# Here a skip (77) is a failure: DKMS installed the module for the running kernel.
. /fairq/lib.sh
dir=/fairq/autopkgtest
[ -f "$dir/control" ] || fail "no debian/tests in the guest"
mapfile -t tests < <(sed -n 's/^Tests:[[:space:]]*//p' "$dir/control" | tr ', ' '\n\n' | grep .)
[ ${#tests[@]} -gt 0 ] || fail "debian/tests/control names no test"

cp -p /etc/fairq/fairq.conf /tmp/fairq.conf.admin
restore() {
	cp -p /tmp/fairq.conf.admin /etc/fairq/fairq.conf
	systemctl start fairq.service
}
trap restore EXIT
systemctl stop fairq.service || fail "systemctl stop fairq failed"
rmmod fairq || fail "rmmod fairq failed"
cp /fairq/pkg/fairq.conf.shipped /etc/fairq/fairq.conf

failed=0
for t in "${tests[@]}"; do
	tmp=$(mktemp -d)
	rc=0
	(cd "$tmp" && AUTOPKGTEST_TMP=$tmp "$dir/$t") >/tmp/apt-$t.out 2>&1 || rc=$?
	rm -rf "$tmp"
	if [ "$rc" = 0 ]; then
		log "autopkgtest $t: $(tail -n 1 /tmp/apt-$t.out)"
	else
		sed "s/^/#   $t: /" /tmp/apt-$t.out
		log "autopkgtest $t: exit $rc"
		failed=$((failed + 1))
	fi
done
restore
trap - EXIT
[ "$failed" = 0 ] || fail "$failed of ${#tests[@]} autopkgtests failed"
[ "$(fairq_sched)" = fq ] || fail "fairq.service did not apply fairq.conf again: $(fairq_sched)"
