build-dev2/k/kernel/main.o: kernel/main.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/core/config.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/core/console.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/core/panic.h kernel/core/lockstat.h kernel/core/record.h \
 kernel/lib/json.h kernel/lib/printf.h tests/kernel/selftest.h \
 boot/boot_info.h kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/cpu.h kernel/arch/x86_64/tsc.h \
 kernel/arch/x86_64/apic.h kernel/platform/acpi_tables.h \
 kernel/arch/x86_64/irq.h kernel/arch/x86_64/trap.h \
 kernel/arch/x86_64/percpu.h kernel/arch/x86_64/smpboot.h \
 kernel/mem/memmap.h kernel/core/time.h kernel/lib/list.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h \
 kernel/proc/task.h kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/core/wait.h kernel/core/spinlock.h kernel/core/sched.h \
 kernel/vm/vm.h kernel/vm/vma.h kernel/proc/syscall.h kernel/run/runner.h \
 kernel/run/script.h kernel/run/results.h kernel/core/bootfs.h \
 kernel/platform/rtc.h drivers/blk_driver.h drivers/blk.h \
 kernel/vm/page_ref.h kernel/mem/page.h kernel/vm/reclaim.h \
 kernel/swap/swap.h kernel/swap/swapalloc.h kernel/vm/vmstat.h \
 kernel/vm/workingset.h kernel/vm/vm.h kernel/swap/readahead.h \
 kernel/mem/memmap.h kernel/mem/kmem.h kernel/mem/memmap.h \
 kernel/mem/pmm.h kernel/mem/page.h kernel/mem/pgtable.h \
 kernel/platform/serial.h kernel/platform/fbcon.h kernel/platform/acpi.h \
 kernel/platform/acpi_tables.h drivers/pci.h drivers/pci_decode.h \
 kernel/arch/x86_64/trap.h drivers/nvme.h drivers/ahci.h drivers/xhci.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/core/config.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/panic.h:
kernel/core/lockstat.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/lib/printf.h:
tests/kernel/selftest.h:
boot/boot_info.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/cpu.h:
kernel/arch/x86_64/tsc.h:
kernel/arch/x86_64/apic.h:
kernel/platform/acpi_tables.h:
kernel/arch/x86_64/irq.h:
kernel/arch/x86_64/trap.h:
kernel/arch/x86_64/percpu.h:
kernel/arch/x86_64/smpboot.h:
kernel/mem/memmap.h:
kernel/core/time.h:
kernel/lib/list.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/proc/task.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/core/sched.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/proc/syscall.h:
kernel/run/runner.h:
kernel/run/script.h:
kernel/run/results.h:
kernel/core/bootfs.h:
kernel/platform/rtc.h:
drivers/blk_driver.h:
drivers/blk.h:
kernel/vm/page_ref.h:
kernel/mem/page.h:
kernel/vm/reclaim.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/vm/vmstat.h:
kernel/vm/workingset.h:
kernel/vm/vm.h:
kernel/swap/readahead.h:
kernel/mem/memmap.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/pgtable.h:
kernel/platform/serial.h:
kernel/platform/fbcon.h:
kernel/platform/acpi.h:
kernel/platform/acpi_tables.h:
drivers/pci.h:
drivers/pci_decode.h:
kernel/arch/x86_64/trap.h:
drivers/nvme.h:
drivers/ahci.h:
drivers/xhci.h:
