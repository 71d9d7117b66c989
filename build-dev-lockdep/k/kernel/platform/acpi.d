build-dev-lockdep/k/kernel/platform/acpi.o: kernel/platform/acpi.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/platform/acpi.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/platform/acpi_tables.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/mem/kmem.h \
 kernel/mem/memmap.h boot/boot_info.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/platform/acpi.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/platform/acpi_tables.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
