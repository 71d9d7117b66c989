build-dev/k/kernel/arch/x86_64/smpboot.o: kernel/arch/x86_64/smpboot.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/arch/x86_64/smpboot.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/mem/memmap.h \
 boot/boot_info.h kernel/platform/acpi_tables.h kernel/arch/x86_64/apic.h \
 kernel/arch/x86_64/cpu.h kernel/arch/x86_64/percpu.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/core/console.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/core/panic.h kernel/core/smp.h kernel/core/time.h \
 kernel/lib/list.h kernel/lib/json.h kernel/mem/kmalloc.h \
 kernel/mem/kmem.h kernel/mem/memmap.h kernel/mem/pgtable.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/arch/x86_64/smpboot.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/platform/acpi_tables.h:
kernel/arch/x86_64/apic.h:
kernel/arch/x86_64/cpu.h:
kernel/arch/x86_64/percpu.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/panic.h:
kernel/core/smp.h:
kernel/core/time.h:
kernel/lib/list.h:
kernel/lib/json.h:
kernel/mem/kmalloc.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
kernel/mem/pgtable.h:
