build-dev-lockdep/k/kernel/arch/x86_64/trap.o: kernel/arch/x86_64/trap.c \
 kernel/arch/x86_64/trap.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/core/console.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/ksyms.h \
 kernel/core/panic.h kernel/mem/kmem.h kernel/mem/memmap.h \
 boot/boot_info.h kernel/arch/x86_64/irq.h kernel/platform/acpi_tables.h \
 kernel/arch/x86_64/percpu.h kernel/arch/x86_64/smpboot.h \
 kernel/mem/memmap.h kernel/core/sched.h kernel/core/runq.h \
 kernel/lib/list.h kernel/core/time.h
kernel/arch/x86_64/trap.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/ksyms.h:
kernel/core/panic.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/arch/x86_64/irq.h:
kernel/platform/acpi_tables.h:
kernel/arch/x86_64/percpu.h:
kernel/arch/x86_64/smpboot.h:
kernel/mem/memmap.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/lib/list.h:
kernel/core/time.h:
