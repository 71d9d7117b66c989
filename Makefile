# mmkernel: one Makefile, two toolchains kept visibly apart.
#
#   make            loader, kernel and the default disk image
#   make run        boot the default image in QEMU: it runs the default
#                   workload script (tests/workloads/scripts/default.mm)
#                   swapping to a fresh build/run-swap.img, prints the table
#   make check      unit tests, fuzz smoke runs and the quick QEMU tests (minutes)
#   make test       unit tests, fuzz smoke runs, workload host tests, all QEMU tests
#   make image      build/disk.img only
#   make stick-image build/stick.img: disk.img plus a swap partition (SWAP=MiB)
#   make deps       install (as root) or list the Debian packages needed
#   make clean
#
# Variables: LOCKDEP=1 (debug build with the lock-order checker, in
# build-lockdep/), CMDLINE='mem=64M ...' (make run / make image; default: the
# default script), BOOT=nvme|sata|usb, MEM=<QEMU -m>, PROFILE=none|ssd|hdd
# (make run's swap disk).  Frame poisoning is the kernel option poison=on.

# LOCKDEP=1: the lock-order checker (kernel/core/lockdep.h), a debug
# build kept apart in build-lockdep/ unless BUILD says otherwise.
LOCKDEP  ?= 0
BUILD    ?= $(if $(filter 1,$(LOCKDEP)),build-lockdep,build)
CMDLINE  ?= quiet mem=48M script=scripts/default.mm
BOOT     ?= nvme
MEM      ?= 256M
PROFILE  ?= none
QEMU_TIMEOUT ?= 600

# V=1 shows full commands.
Q        := $(if $(V),,@)
GIT_REV  := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

all: loader kernel image

# ---------------------------------------------------------------- kernel
# Freestanding toolchain: no libc, no red zone, no SSE, kernel code model.
KCC      := gcc
KCFLAGS  := -std=c11 -O2 -g -ffreestanding -nostdinc -isystem $(shell $(KCC) -print-file-name=include) \
	    -mno-red-zone -mgeneral-regs-only -mcmodel=kernel -fno-pic -fno-pie -fno-stack-protector \
	    -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables \
	    -fcf-protection=none -fno-strict-aliasing -Wall -Wextra -Werror -MD -MP \
	    -I. -Ikernel -Ikernel/lib -I$(BUILD)/gen \
	    -DBUILD_OPTS='"gcc -O2$(if $(filter 1,$(LOCKDEP)), lockdep)"'
ifeq ($(LOCKDEP),1)
KCFLAGS  += -DLOCKDEP
endif
KLDFLAGS := -nostdlib -static -no-pie -Wl,-T,linker.ld -Wl,-z,max-page-size=4096 -Wl,--no-warn-rwx-segments \
	    -Wl,-z,noexecstack -Wl,--build-id=none
NASM     := nasm -f elf64 -g -F dwarf

KSRC     := $(shell find kernel drivers tests/kernel -name '*.c' | sort)
KASM     := $(shell find kernel -name '*.asm' | sort)
KOBJ     := $(KSRC:%.c=$(BUILD)/k/%.o) $(KASM:%.asm=$(BUILD)/k/%.o)

FONT     := /usr/share/consolefonts/Lat15-VGA16.psf.gz

$(BUILD)/gen/font8x16.h: tools/psf2c.py
	@mkdir -p $(dir $@)
	python3 tools/psf2c.py $(FONT) $@

$(BUILD)/k/kernel/platform/fbcon.o: $(BUILD)/gen/font8x16.h

# The commit the boot record names: rewritten when it changes (a commit,
# or a tree that became dirty or clean), so main.o is rebuilt then and
# only then.
$(BUILD)/gen/gitrev.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define GIT_REV "$(GIT_REV)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/k/kernel/main.o: $(BUILD)/gen/gitrev.h

$(BUILD)/k/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  CC   $<'
	$(Q)$(KCC) $(KCFLAGS) -c $< -o $@

$(BUILD)/k/%.o: %.asm
	@mkdir -p $(dir $@)
	@echo '  NASM $<'
	$(Q)$(NASM) $< -o $@

# The trap frame's register pushes, shared by the two entry files.
$(BUILD)/k/kernel/arch/x86_64/entry.o $(BUILD)/k/kernel/arch/x86_64/syscall.o: kernel/arch/x86_64/frame.inc

# Two links: the first with an empty symbol table, the second with the
# table of the first.  .ksyms sits after .text/.rodata, so no code moves;
# the cmp below proves it.
$(BUILD)/ksyms0.c: tools/gen-ksyms.py
	@mkdir -p $(BUILD)
	python3 tools/gen-ksyms.py --empty $@
$(BUILD)/kernel.pass1.elf: $(KOBJ) $(BUILD)/k/ksyms0.o linker.ld
	$(KCC) $(KLDFLAGS) -o $@ $(KOBJ) $(BUILD)/k/ksyms0.o
$(BUILD)/ksyms.c: $(BUILD)/kernel.pass1.elf tools/gen-ksyms.py
	python3 tools/gen-ksyms.py $< $@
$(BUILD)/k/%.o: $(BUILD)/%.c
	@echo '  CC   $<'
	$(Q)$(KCC) $(KCFLAGS) -c $< -o $@
$(BUILD)/kernel.elf: $(KOBJ) $(BUILD)/k/ksyms.o linker.ld
	$(KCC) $(KLDFLAGS) -o $@ $(KOBJ) $(BUILD)/k/ksyms.o
	@nm -n $(BUILD)/kernel.pass1.elf | grep -i ' t ' > $(BUILD)/syms.pass1
	@nm -n $@ | grep -i ' t ' > $(BUILD)/syms.final
	@cmp -s $(BUILD)/syms.pass1 $(BUILD)/syms.final || { echo "ksyms: text moved between links"; exit 1; }

kernel: $(BUILD)/kernel.elf

# ---------------------------------------------------------------- loader
# gnu-efi toolchain: PIC ELF turned into a PE32+ EFI application.
EFI_INC  := /usr/include/efi
EFI_LIB  := /usr/lib
ECFLAGS  := -std=gnu11 -O2 -fpic -fshort-wchar -mno-red-zone -fno-stack-protector -ffreestanding \
	    -fno-strict-aliasing -Wall -Wextra -Werror -Wno-unused-parameter -MD -MP \
	    -I$(EFI_INC) -I$(EFI_INC)/x86_64 -Iboot
$(BUILD)/boot/%.o: boot/%.c
	@mkdir -p $(dir $@)
	@echo '  EFICC $<'
	$(Q)gcc $(ECFLAGS) -c $< -o $@
$(BUILD)/boot/loader.so: $(BUILD)/boot/loader.o $(BUILD)/boot/fat.o
	ld -nostdlib -znocombreloc -T $(EFI_LIB)/elf_x86_64_efi.lds -shared -Bsymbolic -L$(EFI_LIB) \
	   $(EFI_LIB)/crt0-efi-x86_64.o $^ -o $@ -lefi -lgnuefi
$(BUILD)/BOOTX64.EFI: $(BUILD)/boot/loader.so
	objcopy -j .text -j .sdata -j .data -j .rodata -j .dynamic -j .dynsym -j .rel -j .rela \
		-j '.rel.*' -j '.rela.*' -j .reloc --target efi-app-x86_64 $< $@

loader: $(BUILD)/BOOTX64.EFI

# ---------------------------------------------------------------- host tests
# Host toolchain: the kernel's pure files built with the C library and
# sanitizers.
HCC      := gcc
HCFLAGS  := -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer -I. -Ikernel -Idrivers -MD -MP
PURE_SRC := kernel/vm/lru_policy.c drivers/blk_merge.c kernel/vm/vma.c kernel/core/runq.c kernel/lib/timemath.c kernel/lib/printf.c kernel/lib/cmdline.c kernel/lib/suggest.c kernel/lib/json.c kernel/mem/memmap.c \
	    kernel/mem/buddy.c kernel/platform/acpi_tables.c kernel/lib/crc32.c drivers/gpt.c kernel/swap/swaphdr.c \
	    kernel/proc/elf.c kernel/proc/auxv.c drivers/pci_decode.c drivers/usb_proto.c kernel/swap/swapalloc.c kernel/swap/ra_policy.c kernel/run/script.c kernel/lib/stats.c \
	    boot/fat.c kernel/run/results_log.c
# The knob table: the command line, scripts and mm/knobs.c check values there.
PURE_SRC += kernel/core/knob_table.c
# Which CPUs to start (issue 14); the per-CPU free-page lists.
PURE_SRC += kernel/core/smp.c kernel/mem/pcp.c
# The result table of workload scripts.
PURE_SRC += kernel/run/rtable.c
# Workingset detection: shadows and the refault rule.
PURE_SRC += kernel/vm/workingset_policy.c
# The /proc text formatters and path normaliser.
PURE_SRC += kernel/proc/procfs_text.c
# The page cache: its index and policies (issue 13).
PURE_SRC += kernel/vm/pagecache_idx.c kernel/vm/pagecache_policy.c
# PSI's running averages (/proc/pressure/memory).
PURE_SRC += kernel/vm/psi_avg.c
# Overcommit accounting: the commit limit and the verdict.
PURE_SRC += kernel/vm/commit_policy.c
# The PVH boot's initrd reader.
PURE_SRC += kernel/lib/cpio.c
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/host/%.o) $(PURE_SRC:%.c=$(BUILD)/host/%.o)
# The framebuffer console, drawn into memory the unit test owns: with the
# generated font, so not among the fuzz targets' PURE_SRC.
UNIT_OBJ += $(BUILD)/host/kernel/platform/fbcon.o
$(BUILD)/host/kernel/platform/fbcon.o $(BUILD)/host/tests/unit/test_fbcon.o: HCFLAGS += -I$(BUILD)/gen
$(BUILD)/host/kernel/platform/fbcon.o $(BUILD)/host/tests/unit/test_fbcon.o: $(BUILD)/gen/font8x16.h

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  HOSTCC $<'
	$(Q)$(HCC) $(HCFLAGS) -c $< -o $@
$(BUILD)/unit-tests: $(UNIT_OBJ)
	$(HCC) $(HCFLAGS) -pthread -o $@ $^

# Glue tests: the kernel's stateful glue (state, locks, references) built
# from the real files against small fakes of what lies around it
# (tests/glue/fake_kernel.c; tests/glue/fakes/ shadows the headers that
# cannot run on the host, such as the spinlock; it is forced in first, since
# core/wait.h includes "spinlock.h" from its own folder), as Linux's
# tools/testing/vma.
GLUE_SRC := kernel/swap/swapcache.c kernel/swap/swapin.c kernel/swap/readahead.c kernel/swap/ra_policy.c \
	    kernel/vm/reclaim.c kernel/vm/lru.c kernel/vm/lru_policy.c kernel/vm/rmap.c kernel/vm/page_ref.c kernel/vm/shmem.c \
	    kernel/vm/vma.c \
	    kernel/vm/workingset.c kernel/vm/workingset_policy.c \
	    kernel/lib/stats.c kernel/lib/json.c kernel/lib/printf.c kernel/lib/suggest.c
GLUE_TESTS := $(sort $(wildcard tests/glue/*.c))
GLUE_OBJ := $(GLUE_TESTS:%.c=$(BUILD)/glue/%.o) $(GLUE_SRC:%.c=$(BUILD)/glue/%.o) $(BUILD)/glue/tests/unit/main.o
$(BUILD)/glue/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  GLUECC $<'
	$(Q)$(HCC) -Itests/glue/fakes -include tests/glue/fakes/core/spinlock.h $(HCFLAGS) -Itests/glue -c $< -o $@
# --wrap: readahead.c's policy look-up goes through the fakes' spy
# (fake_kernel.c), which hands back the real ops unless a test asks.
$(BUILD)/glue-tests: $(GLUE_OBJ)
	$(HCC) $(HCFLAGS) -Wl,--wrap=ra_ops_of -o $@ $^
glue: $(BUILD)/glue-tests
	$(BUILD)/glue-tests

# Fixtures made by the real tools (sgdisk, mkswap) for the GPT and swap
# header tests; the tests skip them when the variables are unset.
FIXTURES := $(BUILD)/host/fixtures
$(FIXTURES)/gpt.stamp: tests/unit/gen-gpt-fixture.sh
	tests/unit/gen-gpt-fixture.sh $(FIXTURES) && touch $@
$(FIXTURES)/swap.stamp: tests/unit/gen-swap-fixture.sh
	tests/unit/gen-swap-fixture.sh $(FIXTURES) && touch $@
$(FIXTURES)/fat.stamp: tests/unit/gen-fat-fixture.sh
	tests/unit/gen-fat-fixture.sh $(FIXTURES)/fat && touch $@

unit: $(BUILD)/unit-tests $(FIXTURES)/gpt.stamp $(FIXTURES)/swap.stamp $(FIXTURES)/fat.stamp workloads
	GPT_FIXTURE_DIR=$(FIXTURES) SWAP_FIXTURE_DIR=$(FIXTURES) FAT_FIXTURE_DIR=$(FIXTURES)/fat WORKLOAD_DIR=$(WOUT) \
	    $(BUILD)/unit-tests

# Fuzz targets: clang + libFuzzer; `make fuzz FUZZ_SECONDS=600` for long runs.
FUZZ_SECONDS ?= 10
FCC      := clang
# -MD -MP: a header change rebuilds the objects (without, fuzz_elf checked
# the new ELF_USER_TOP against an elf.o built with the old one and trapped).
FCFLAGS  := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I. -Ikernel -Idrivers -MD -MP
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
# Each source is compiled once (fuzzer-no-link: coverage without a main),
# and every target links the same objects: 12 targets used to compile all
# of PURE_SRC 12 times over, minutes of make test.
FUZZ_OBJ := $(PURE_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo '  FUZZCC $<'
	$(Q)$(FCC) $(FCFLAGS:-fsanitize=fuzzer,%=-fsanitize=fuzzer-no-link,%) -c $< -o $@
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FCC) $(FCFLAGS) -o $@ $< $(FUZZ_OBJ)
fuzz: $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do \
	  mkdir -p $(BUILD)/fuzz/corpus-$$(basename $$f); \
	  echo "fuzz: $$f for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 $(BUILD)/fuzz/corpus-$$(basename $$f) \
	      tests/fuzz/seeds/$$(basename $$f) 2>$(BUILD)/fuzz/$$(basename $$f).log \
	    || { tail -40 $(BUILD)/fuzz/$$(basename $$f).log; exit 1; }; \
	done

# ---------------------------------------------------------------- workloads
# Ring-3 workload programs: freestanding static Linux binaries (see
# tests/workloads/BUILD.md), plus musl-built ones.
WCC      := gcc
WCFLAGS  := -std=c11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-builtin -fno-pie -fno-stack-protector \
	    -fcf-protection=none -mgeneral-regs-only -fno-tree-loop-distribute-patterns -MD -MP
WLDFLAGS := -static -nostdlib -no-pie -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack -Wl,--build-id=none
WDIR     := tests/workloads
WOUT     := $(BUILD)/workloads
RT_OBJ   := $(patsubst $(WDIR)/%,$(WOUT)/%.o,$(basename $(wildcard $(WDIR)/rt/rt_*.c $(WDIR)/rt/rt_*.S)))
RT_LIB_OBJ := $(filter-out $(WOUT)/rt/rt_libc_shim.o,$(RT_OBJ))
WPROGS   := touch hogmem fill threads hello uperf systest crash sysfuzz hold vmstat shmdb stream mmap001 filecheck tlbtest filews
WBINS    := $(WPROGS:%=$(WOUT)/%) $(WOUT)/hello_musl $(WOUT)/touch_musl

$(WOUT)/%.o: $(WDIR)/%.c
	@mkdir -p $(dir $@)
	@echo '  WLCC $<'
	$(Q)$(WCC) $(WCFLAGS) -c $< -o $@
$(WOUT)/%.o: $(WDIR)/%.S
	@mkdir -p $(dir $@)
	@echo '  WLCC $<'
	$(Q)$(WCC) $(WCFLAGS) -c $< -o $@
$(WOUT)/librt.a: $(RT_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(WOUT)/libwl.a: $(WOUT)/vpage.o $(WOUT)/wtrace.o $(WOUT)/wlio.o
	rm -f $@ && ar rcs $@ $^
$(WOUT)/%: $(WOUT)/%.o $(WOUT)/rt/crt0.o $(WOUT)/libwl.a $(WOUT)/librt.a $(WOUT)/rt/rt_libc_shim.o
	$(WCC) $(WLDFLAGS) -o $@ $(WOUT)/rt/crt0.o $< $(WOUT)/libwl.a $(WOUT)/librt.a $(WOUT)/rt/rt_libc_shim.o
$(WOUT)/hello_musl: $(WDIR)/hello_musl.c
	musl-gcc -std=c11 -O2 -g -Wall -Wextra -Werror -static -no-pie -o $@ $<
$(WOUT)/touch_musl: $(WOUT)/touch.o $(WOUT)/libwl.a $(WOUT)/librt.a
	musl-gcc -static -no-pie -o $@ $^

workloads: $(WBINS)

workload-tests: workloads
	$(WDIR)/host-test.sh --no-build $(WOUT)

# ---------------------------------------------------------------- image
# The default image carries every workload program under bin/ and every
# workload script under scripts/.
SCRIPTS  := $(sort $(wildcard tests/workloads/scripts/*.mm))
IMAGE_FILES ?= $(foreach b,$(WBINS),$(b):bin/$(notdir $(b))) $(foreach s,$(SCRIPTS),$(s):scripts/$(notdir $(s)))
$(BUILD)/disk.img: $(BUILD)/BOOTX64.EFI $(BUILD)/kernel.elf $(WBINS) tools/mkimage FORCE
	tools/mkimage -o $@ -l $(BUILD)/BOOTX64.EFI -k $(BUILD)/kernel.elf -c '$(CMDLINE)' $(IMAGE_FILES)

# The same files as a newc cpio for the PVH boot (QEMU -kernel kernel.elf
# -initrd initrd.cpio, no firmware): the QEMU tests' fast path.
$(BUILD)/initrd.cpio: $(WBINS) $(SCRIPTS) tools/mkinitrd tools/mmtools/cpio.py
	tools/mkinitrd -o $@ $(IMAGE_FILES)

image: $(BUILD)/disk.img $(BUILD)/initrd.cpio

# The default image plus a mkswap'ed Linux swap partition 2 of SWAP MiB
# after the ESP: make stick-image SWAP=4096 gives build/stick.img, which
# swaps on the stick itself under swap=auto (README: "Booting a real PC
# from USB").
SWAP     ?= 1024
stick-image: $(BUILD)/BOOTX64.EFI $(BUILD)/kernel.elf $(WBINS) tools/mkimage
	tools/mkimage -o $(BUILD)/stick.img -l $(BUILD)/BOOTX64.EFI -k $(BUILD)/kernel.elf -c '$(CMDLINE)' \
		--swap-part $(SWAP) $(IMAGE_FILES)

# An image that runs one workload script: make script-image SCRIPT=path.mm
script-image: loader kernel workloads
	tools/mkscript-image $(SCRIPT) --build $(BUILD)

run: deps-check all
	rm -f $(BUILD)/run-swap.img && truncate -s 256M $(BUILD)/run-swap.img && mkswap -q $(BUILD)/run-swap.img
	tools/qemu-run --image $(BUILD)/disk.img --boot $(BOOT) --mem $(MEM) --timeout $(QEMU_TIMEOUT) \
		--disk $(BUILD)/run-swap.img:nvme --profile $(PROFILE) --summary

# ---------------------------------------------------------------- tests
# QEMU tests: pytest, two at a time (tests/qemu/conftest.py, README
# "Tests").  Their summary line is the last line of make test's output:
# keep the QEMU run as the last recipe.  PYTEST_ARGS adds pytest options,
# e.g. PYTEST_ARGS='-k swap' or PYTEST_ARGS='-m "not slow"'.
PYTEST   ?= pytest-3
PYTEST_ARGS ?=
QEMU_TESTS = $(PYTEST) tests/qemu -n 2 --build $(BUILD) --durations=25

# The host checks and every build the QEMU cases need (the lockdep kernel
# of test_lockdep.py too), JOBS at a time, then the QEMU cases.  Cases
# marked `long` (benchmark-sized icount runs) are left to
# make test-long, to keep make test short (its target: 15 minutes on a
# 2-core host; .ci/run took 9 min 58 s on a clean clone, README).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test-host: layers unit glue fuzz-smoke workload-tests matrix-selftest tools-test all lockdep-build
lockdep-build:
	@$(MAKE) --no-print-directory LOCKDEP=1 BUILD=$(BUILD)-lockdep all
test: deps-check
	@$(MAKE) --no-print-directory -j$(JOBS) test-host
	$(QEMU_TESTS) -m 'not long' $(PYTEST_ARGS)
test-long: deps-check all
	$(QEMU_TESTS) -m long $(PYTEST_ARGS)

check: deps-check layers unit glue fuzz-smoke all
	$(QEMU_TESTS) -m quick $(PYTEST_ARGS)

# The long stress runs issue 14 asks for, outside make test: 50 boots of
# concurrent swapping on 2 CPUs (make test runs 3).
stress: all
	SMP_STRESS_BOOTS=50 $(PYTEST) tests/qemu --build $(BUILD) -k test_smp_swap_stress_boots $(PYTEST_ARGS)

# No folder includes a higher layer's (tools/check-layers lists the layers).
layers:
	tools/check-layers

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=5

# Benchmarks (long; not part of make test).  BENCH_RUNS=N repeats.
BENCH_RUNS ?= 3
# bench-swap: the swap disk on NVMe, then on a USB stick (usb-storage on xHCI).
BENCH_SWAP_BUSES ?= nvme,usb
bench-blk: deps-check all
	tools/bench blk --runs $(BENCH_RUNS)
bench-swap: deps-check all
	tools/bench swap --runs $(BENCH_RUNS) --profiles ssd,hdd --buses $(BENCH_SWAP_BUSES)
# bench-ra (issue 12): own read-ahead against off and fixed:1..4 per touch pattern, profile none, swap on
# NVMe; tools/bench ra --profiles none,ssd,hdd --buses nvme,sata for the other tables (see README).
bench-ra: deps-check all
	tools/bench ra
# bench-smp (issue 14): build16, threads 4 and touch threads=4 at cpus=1,2,4 on -smp 4.
bench-smp: deps-check all
	tools/bench smp --runs $(BENCH_RUNS)

# Linux side by side: the same workload on Debian's stock kernel (fetched
# with apt-get into build/linux-peer/) and on ours.  LINUX_PEER_ARGS
# replaces the default plan; see tools/linux-peer.
LINUX_PEER_ARGS ?= --workload "touch 72 20000 seq anon" --page-cluster 0,3 --mem 256M \
		   --linux-mem 128M --ours-mem 48M --ours both
linux-peer: deps-check all
	tools/linux-peer $(LINUX_PEER_ARGS)

# Workload scripts x disk profiles x swap bus: CSVs, tables and gnuplot
# PNGs in build/matrix/.  MATRIX_ARGS replaces the default; see tools/matrix.
MATRIX_ARGS ?= tests/workloads/scripts/smoke.mm --profile ssd
matrix: deps-check all
	tools/matrix $(MATRIX_ARGS)
matrix-selftest:
	tools/matrix --self-test

# The Python tools' own tests (tools/tests, pytest; Debian's pytest-3 runs
# the system python3 that python3-pytest installs into) and shellcheck of
# the shell that tools/ ships into guests.
# tools/tests/test_min.py traces the workloads, so they are built first.
tools-test: workloads
	pytest-3 -q tools/tests

deps:
	tools/deps --install

deps-check:
	@tools/deps

clean:
	rm -rf $(BUILD)

FORCE:
.PHONY: all kernel loader image stick-image script-image run test test-host test-long lockdep-build check stress layers unit glue fuzz fuzz-smoke workloads workload-tests deps deps-check clean bench-blk bench-swap bench-ra bench-smp matrix matrix-selftest tools-test linux-peer FORCE
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
