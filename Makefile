# userns-idmap: Debian's linux-source-6.1 (or 6.12) + our patch series,
# built and tested under QEMU.  'make help' lists the targets.

SHELL := /bin/bash
S := scripts
# BASE=6.12 for the series on linux-source-6.12 (series/6.12, build/6.12);
# 6.1 is the default.  Every target takes it.
BASE ?= 6.1
export BASE
B := $(if $(filter 6.1,$(BASE)),build,build/$(BASE))

# Never two kernel builds at once (2 cores): run targets one after another.
.NOTPARALLEL:

.PHONY: help deps tree export kernel kernel-patched kernel-stock kernel-nouserns compile-nouserns kernels tests initramfs \
	kernel-debug kernel-stock-debug kernel-kcsan toolsimg clients check check-debug check-kcsan \
	fuzz plant run shell bench profile memlines holdtime fourlines diffcheck docs docs-check lint bisect samecode deb deb-guest clean distclean

help:
	@echo 'make run           build the patched kernel, boot it, run the demo'
	@echo 'make check         build stock, patched and USER_NS=n kernels, run every test'
	@echo 'make clients       the container-tool tests alone, stock vs patched'
	@echo 'make shell         boot the patched kernel with a shell on the console'
	@echo 'make check-debug   KUnit + tests on SMP KASAN/UBSAN/lockdep/kmemleak kernels'
	@echo 'make check-kcsan   stress + map tests on an SMP KCSAN kernel'
	@echo 'make fuzz          differential fuzzer, stock vs patched (SEEDS=, COUNT=)'
	@echo 'make plant PLANT=  a planted bug (plants/) that its checker must catch'
	@echo 'make bench         deterministic benchmark, stock vs patched (results/)'
	@echo 'make profile       instructions per function of one syscall (WORKLOAD=stat)'
	@echo 'make memlines      loads, stores and cache lines of the path walks (QEMU plugin)'
	@echo 'make holdtime      instructions under userns_state_mutex per map write'
	@echo 'make fourlines     instructions of a 4-cache-line lookup (user-space model)'
	@echo 'make diffcheck     the engine in user space against naive scans (ASan, UBSan)'
	@echo 'make tree          extract the source into build/linux and apply series/'
	@echo 'make export        write the tree'"'"'s commits back into series/'
	@echo 'make kernel        build the patched kernel (kernel-stock: the stock one)'
	@echo 'make docs          rewrite the generated tables of README.md, docs/ from docs/results/'
	@echo 'make docs-check    fail if those tables, or the README'"'"'s test counts, are stale'
	@echo 'make lint          docs-check, shellcheck, checkpatch --strict on series/, sparse'
	@echo 'make bisect        build, boot and test every prefix of the series (FROM=N)'
	@echo 'make deb           ours and stock as Debian packages, Debian'"'"'s config (build/deb/;'
	@echo '                   DEB_VARIANTS=patched: ours only, CONFIG_ONLY=1: configure only)'
	@echo 'make deb-guest     a bookworm guest with systemd: ours, stock, Debian'"'"'s kernel (root)'
	@echo 'make samecode OLD= every prefix compiles as at repo commit OLD (rework check)'
	@echo 'make tests         build the guest'"'"'s test programs (toolsimg: the container tools image)'
	@echo 'make deps          install the Debian packages everything needs'
	@echo 'make clean         remove object dirs, kernels, images (distclean: all of build/, results/)'
	@echo 'BASE=6.12          any target on linux-source-6.12 (series/6.12/; default 6.1)'

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

export:
	@$(S)/export.sh

kernel: tree
	@$(S)/build-kernel.sh patched

kernel-stock: tree
	@$(S)/build-kernel.sh stock

kernel-nouserns: tree
	@$(S)/build-kernel.sh nouserns

kernels: kernel kernel-stock kernel-nouserns

# The CONFIG_USER_NS=n side of the series compiled, not booted: the files
# it changes that such a kernel builds, and callers of every id helper
# (CI, in place of the third kernel; make check boots that kernel).
NOUSERNS_OBJS ?= fs/stat.o fs/open.o fs/namei.o \
	fs/attr.o fs/inode.o fs/posix_acl.o fs/exec.o fs/ext4/inode.o \
	fs/ext4/ialloc.o fs/ext4/super.o fs/proc/base.o fs/proc/array.o \
	kernel/cred.o kernel/groups.o kernel/sys.o \
	kernel/capability.o kernel/signal.o kernel/fork.o kernel/user.o \
	ipc/util.o net/core/sock.o net/core/scm.o security/commoncap.o
compile-nouserns: tree
	@OBJS="$(NOUSERNS_OBJS)" $(S)/build-kernel.sh nouserns

kernel-debug: tree
	@$(S)/build-kernel.sh patched-debug

kernel-stock-debug: tree
	@$(S)/build-kernel.sh stock-debug

tests: tree
	@$(S)/build-tests.sh

initramfs: tests
	@$(S)/mkinitramfs.sh $(B)/initramfs.cpio

toolsimg: initramfs
	@$(S)/mktoolsimg.sh $(B)/tools.img

# VARIANTS="patched": only the kernels named are built and booted (CI's
# 6.12 run); the default is all three.
VARIANTS ?= patched stock nouserns
export VARIANTS
kernel-patched: kernel

check: $(VARIANTS:%=kernel-%) initramfs toolsimg
	@$(S)/check.sh

# The container-tool tests alone (make check runs them too), on stock and
# ours: CLIENT_TESTS=podman_run for one.
CLIENT_TESTS ?= bwrap lxc_usernsexec crun runc podman_unshare buildah_unshare newuidmap_4096 podman_run tool_limits
clients: kernel kernel-stock initramfs toolsimg
	@ONLY_TOOLS=1 VARIANTS="patched stock" TOOL_TESTS="$(CLIENT_TESTS)" $(S)/check.sh

# DEBUG_VARIANTS=patched-debug: ours only (CI: both do not fit in 60 minutes).
DEBUG_VARIANTS ?= patched-debug stock-debug
check-debug: tree initramfs
	@for v in $(DEBUG_VARIANTS); do $(S)/build-kernel.sh "$$v" || exit 1; done
	@VARIANTS="$(DEBUG_VARIANTS)" $(S)/check-debug.sh

kernel-kcsan: tree
	@$(S)/build-kernel.sh patched-kcsan

check-kcsan: kernel-kcsan initramfs
	@$(S)/check-kcsan.sh

run: kernel initramfs
	@$(S)/vm.sh --variant patched --timeout 300 -- /guest/demo.sh

shell: kernel initramfs
	@$(S)/vm.sh --variant patched --shell

fuzz: kernel kernel-stock initramfs
	@$(S)/fuzz.sh

plant: tree initramfs toolsimg
	@$(S)/plant.sh $(PLANT)

bench: tree
	@$(S)/bench.sh

profile: tree
	@$(S)/profile.sh

memlines: tree
	@$(S)/memlines.sh

holdtime: tree
	@$(S)/holdtime.sh

fourlines:
	@$(S)/fourlines.sh

diffcheck: tree
	@$(S)/diffcheck.sh

# No kernel tree: the committed results in docs/results/ only.
docs:
	@$(S)/docs.sh

docs-check:
	@$(S)/docs.sh --check

lint: tree
	@$(S)/lint.sh

bisect: tree initramfs
	@$(S)/bisect.sh

# Debian's kernel: the series with Debian's config, as packages, and a real
# Debian guest that installs them (scripts/deb.sh, scripts/deb-guest.sh).
DEB_VARIANTS ?= patched stock
deb: tree
	@for v in $(DEB_VARIANTS); do $(S)/deb.sh $$v || exit; done

deb-guest: tests
	@$(S)/deb-guest.sh $(KERNELS)

samecode: tree
	@$(S)/samecode.sh

clean:
	rm -rf $(B)/obj-* $(B)/kernels $(B)/tests $(B)/results $(B)/*.img $(B)/initramfs.cpio

distclean:
	rm -rf $(B) results
