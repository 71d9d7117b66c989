build-dev/k/drivers/pci.o: drivers/pci.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h drivers/pci.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h drivers/pci_decode.h \
 kernel/arch/x86_64/trap.h drivers/pci_regs.h kernel/platform/acpi.h \
 kernel/platform/acpi_tables.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/record.h \
 kernel/lib/json.h kernel/lib/errno.h kernel/lib/printf.h \
 kernel/mem/kmem.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/mem/kmalloc.h kernel/mem/pgtable.h kernel/core/spinlock.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/arch/x86_64/irq.h kernel/arch/x86_64/trap.h \
 kernel/platform/acpi_tables.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
drivers/pci.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
drivers/pci_decode.h:
kernel/arch/x86_64/trap.h:
drivers/pci_regs.h:
kernel/platform/acpi.h:
kernel/platform/acpi_tables.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/lib/errno.h:
kernel/lib/printf.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/kmalloc.h:
kernel/mem/pgtable.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/arch/x86_64/irq.h:
kernel/arch/x86_64/trap.h:
kernel/platform/acpi_tables.h:
