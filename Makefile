# SPDX-License-Identifier: GPL-2.0-only
#
# make              build fairq.ko for the running kernel (KDIR=... for another)
# make demo         boot a Debian kernel in qemu: nfsd under load, schedulers switched
# make check        every test: unit, style, builds on all kernels, the VM suite on all kernels
# make quick        the inner loop: unit, style, nl-check and cli; no VM, no root (seconds, once
#                   the first run fetched checkpatch and the netlink generator)
# make vm-check KERNELS="6.12" TESTS="switch-under-load"   a part of the VM suite
# make deep-check   W=1/sparse and the VM suite on the debug kernel (6.12-debug: lockdep, KASAN, kmemleak; built
#                   once from Debian's source, about an hour, then cached), the concurrency tests on
#                   the data-race detector's kernel (6.12-kcsan, built the same way), and on 7.3 as shipped
#                   on two NUMA nodes (nfsd's pernode pools), and beside a node without CPUs, and
#                   fq on 256 nfsd threads on every kernel, and NFS over RDMA with its NFSv4.1
#                   fio part on every kernel; never in make check
# make deb          Debian packages in build/pkg/ (fairq-dkms, fairqctl); make rpm: the same as RPMs
# make pkg-check    both, lintian clean, and the tests of what the packages install
# make pkg-install-check   the packages installed in a Debian userland: DKMS builds for its kernel,
#                   and a server on release 0.1.0 upgraded to them
# make fairqctl     the netlink CLI (tools/fairqctl); make cli: it and its host-side tests
# make nl-check     the committed netlink code is what docs/netlink/fairq.yaml generates
# make fairq-load   the RPC load generator (tools/fairq-load); make load-test: its host-side tests
# make bench [SCENARIO="1 2 4"] [KERNEL=6.12] [CLOCK=icount|wall]   the benchmarks in the VM,
#                   into build/bench/, on the instruction clock unless CLOCK=wall
#                   (docs/benchmarks.md; 15 min to 2 h with the schedulers compared; never in make check)
# make budget [KERNEL=6.12] [INSNS=1]   calls per RPC of each dispatch path (kprobe hit counts),
#                   one guest; INSNS=1 also instructions per RPC by function (a TCG plugin)
# make dump-profile [DUMP_KEYS=10000]   fairqctl's own instructions for a dump of that many
#                   keys, by function (callgrind on the host, against a stand-in for the module);
#                   GUEST=1 [KERNEL=6.12]: the whole dump in the guest, kernel included
#
# The kernel module itself is described in Kbuild (kbuild reads it in preference to this file).

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
VERSION := $(shell sh tools/version.sh)
KERNELS ?= all
comma := ,
TESTS ?=
DEMO_KERNEL ?= 6.12

.PHONY: all module clean prereqs quick-prereqs demo check quick unit style build-check vm-check \
	deep-check
.PHONY: pkg-prereqs deb rpm pkg-check pkg-install-check

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) FAIRQ_VERSION=$(VERSION) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C tools/fairqctl clean
	$(MAKE) -C tools/fairq-load clean
	rm -rf build

prereqs:
	bash tests/vm/prereqs.sh

quick-prereqs:
	bash tests/prereqs-quick.sh

demo: prereqs
	bash tests/vm/demo.sh $(DEMO_KERNEL)

UNIT_TESTS := $(patsubst tests/unit/%.c,build/unit/%,$(wildcard tests/unit/test_*.c))
build/unit/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h src/*.[ch] src/compat/*.h src/sched/*.[ch] include/fairq/*.h tests/unit/shim/*/*.h tests/unit/shim/*/*/*.h)
	@mkdir -p build/unit
	$(CC) -Wall -Wextra -Werror -std=gnu11 -O1 -g -fsanitize=address,undefined \
		-Itests/unit/shim -Iinclude -o $@ $<

unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "$$t"; ./$$t; done

style: quick-prereqs
	bash tools/checkpatch.sh
	@# a policy is built against its API (include/fairq/) only, never the core's own headers
	@if grep -n '#include "\.\./' src/sched/*.[ch]; then \
		echo "a policy includes the core's own headers: only <fairq/...> is its API" >&2; exit 1; fi
	@# hook points are filtered by address: a filter by name makes ftrace look up the symbol of
	@# every traceable function (most of a CPU-second of modprobe; src/hook.c)
	@if grep -n 'ftrace_set_filter(' src/*.c src/*/*.c; then \
		echo "an ftrace filter by name: filter by address (ftrace_set_filter_ip)" >&2; exit 1; fi

build-check: prereqs
	bash tests/build-check.sh $(filter-out all,$(KERNELS))

images: prereqs
	bash tests/vm/images.sh

vm-check: prereqs
	bash tests/vm/run -k $(KERNELS) $(TESTS)

check: images unit style nl-check cli load-test pkg-check pkg-install-check build-check vm-check

# The inner loop: what needs no kernel, no VM, no package build and no root, in about a minute
# (the first run downloads Debian's linux-source-6.12 once, for checkpatch and the generator).
quick: quick-prereqs unit style nl-check cli

DEEP_KERNELS ?= 6.12-debug
KCSAN_KERNELS ?= 6.12-kcsan
KCSAN_TESTS ?= races switch-under-load unload-under-load nfsd-restart fq-churn fq-cap fairqctl-shares
deep-check: prereqs
	bash tests/build-check.sh $(subst $(comma), ,$(DEEP_KERNELS) $(KCSAN_KERNELS))
	bash tests/vm/run -k $(DEEP_KERNELS) $(TESTS)
	bash tests/vm/run -k $(KCSAN_KERNELS) $(KCSAN_TESTS)
	bash tests/vm/run -k 7.3 --smp 2 --numa 2 load switch-under-load unload-under-load pools-orphan
	bash tests/vm/run -k 7.3 --smp 4 --numa 2 --cpuless-node pools-home
	bash tests/vm/run -k all --threads 256 fq-threads
	bash tests/vm/run -k all rdma

# fairqctl, and the netlink code generated from the family's spec (tools/ynl-regen.sh).
.PHONY: fairqctl cli nl-check
fairqctl:
	$(MAKE) -C tools/fairqctl VERSION=$(VERSION)

cli: fairqctl
	$(MAKE) -C tools/fairqctl VERSION=$(VERSION) check

nl-check: quick-prereqs
	bash tools/ynl-regen.sh --check

# The load generator, and the benchmarks that drive it in the VM (docs/benchmarks.md).
.PHONY: fairq-load load-test bench bench-prereqs budget dump-profile
fairq-load:
	$(MAKE) -C tools/fairq-load VERSION=$(VERSION)

load-test: prereqs
	$(MAKE) -C tools/fairq-load VERSION=$(VERSION) test

bench-prereqs: prereqs
	bash tests/bench/prereqs.sh

bench: bench-prereqs
	bash tests/bench/run.sh

budget: prereqs
	bash tests/bench/budget.sh

# fairqctl's own instructions for a dump of DUMP_KEYS keys (callgrind on the host)
dump-profile: $(if $(filter 1,$(GUEST)),prereqs)
	bash tests/bench/dump-profile.sh

# Packages (docs/packaging.md), built from a clean copy of the tree into build/pkg/.
pkg-prereqs:
	bash tools/pkg.sh prereqs

deb: pkg-prereqs
	bash tools/pkg.sh deb

rpm: pkg-prereqs
	bash tools/pkg.sh rpm

pkg-check: deb rpm
	bash tests/pkg/fairq-apply.sh
	bash tests/pkg/contents.sh
	bash tools/pkg.sh lint
	bash tests/pkg/build-trixie.sh

pkg-install-check: prereqs deb rpm
	bash tests/pkg/dkms-install.sh $(DEMO_KERNEL)
	bash tests/pkg/upgrade.sh $(DEMO_KERNEL)
