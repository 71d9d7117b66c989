build-dev2/k/kernel/platform/i8042.o: kernel/platform/i8042.c \
 kernel/platform/i8042.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/platform/acpi.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/platform/acpi_tables.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h
kernel/platform/i8042.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/platform/acpi.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/platform/acpi_tables.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
