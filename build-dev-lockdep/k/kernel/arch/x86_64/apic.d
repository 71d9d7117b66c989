build-dev-lockdep/k/kernel/arch/x86_64/apic.o: kernel/arch/x86_64/apic.c \
 kernel/arch/x86_64/apic.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/platform/acpi_tables.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/cpu.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/lib/errno.h \
 kernel/mem/kmem.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/mem/pgtable.h kernel/core/time.h kernel/lib/list.h
kernel/arch/x86_64/apic.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/platform/acpi_tables.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/cpu.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/errno.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/pgtable.h:
kernel/core/time.h:
kernel/lib/list.h:
