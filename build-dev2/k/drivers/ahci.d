build-dev2/k/drivers/ahci.o: drivers/ahci.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h drivers/ahci.h \
 drivers/ahci_regs.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 drivers/blk_driver.h drivers/blk.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/list.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h drivers/pci.h \
 drivers/pci_decode.h kernel/arch/x86_64/trap.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/panic.h \
 kernel/core/record.h kernel/lib/json.h kernel/core/time.h \
 kernel/lib/errno.h kernel/lib/printf.h kernel/mem/kmalloc.h \
 kernel/mem/pmm.h kernel/mem/page.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h \
 kernel/core/wait.h kernel/core/spinlock.h kernel/core/sched.h \
 kernel/arch/x86_64/irq.h kernel/arch/x86_64/trap.h \
 kernel/platform/acpi_tables.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
drivers/ahci.h:
drivers/ahci_regs.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
drivers/blk_driver.h:
drivers/blk.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/list.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
drivers/pci.h:
drivers/pci_decode.h:
kernel/arch/x86_64/trap.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/panic.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/time.h:
kernel/lib/errno.h:
kernel/lib/printf.h:
kernel/mem/kmalloc.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/core/sched.h:
kernel/arch/x86_64/irq.h:
kernel/arch/x86_64/trap.h:
kernel/platform/acpi_tables.h:
