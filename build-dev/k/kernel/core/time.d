build-dev/k/kernel/core/time.o: kernel/core/time.c kernel/core/time.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/list.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/tsc.h kernel/arch/x86_64/apic.h \
 kernel/platform/acpi_tables.h kernel/arch/x86_64/irq.h \
 kernel/arch/x86_64/trap.h kernel/arch/x86_64/percpu.h \
 kernel/platform/acpi.h kernel/platform/acpi_tables.h \
 kernel/lib/timemath.h kernel/mem/kmem.h kernel/mem/memmap.h \
 boot/boot_info.h kernel/mem/pgtable.h kernel/core/spinlock.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/sched.h \
 kernel/core/runq.h
kernel/core/time.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/list.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/tsc.h:
kernel/arch/x86_64/apic.h:
kernel/platform/acpi_tables.h:
kernel/arch/x86_64/irq.h:
kernel/arch/x86_64/trap.h:
kernel/arch/x86_64/percpu.h:
kernel/platform/acpi.h:
kernel/platform/acpi_tables.h:
kernel/lib/timemath.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/pgtable.h:
kernel/core/spinlock.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/sched.h:
kernel/core/runq.h:
