build-dev2/k/kernel/core/panic.o: kernel/core/panic.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/core/panic.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/record.h \
 kernel/lib/json.h kernel/core/ksyms.h kernel/lib/printf.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/cpu.h kernel/arch/x86_64/trap.h kernel/core/config.h \
 kernel/core/spinlock.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/platform/acpi.h \
 kernel/platform/acpi_tables.h kernel/platform/i8042.h \
 kernel/platform/serial.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/core/panic.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/ksyms.h:
kernel/lib/printf.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/cpu.h:
kernel/arch/x86_64/trap.h:
kernel/core/config.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/platform/acpi.h:
kernel/platform/acpi_tables.h:
kernel/platform/i8042.h:
kernel/platform/serial.h:
