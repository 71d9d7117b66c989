build-dev-lockdep/k/kernel/mem/pmm.o: kernel/mem/pmm.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/mem/pmm.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/mem/page.h \
 kernel/lib/list.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/mem/buddy.h kernel/mem/pcp.h kernel/mem/kmem.h \
 kernel/core/panic.h kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/lib/errno.h \
 kernel/core/smp.h kernel/platform/acpi_tables.h \
 kernel/arch/x86_64/smpboot.h kernel/mem/memmap.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/mem/pmm.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/mem/page.h:
kernel/lib/list.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/buddy.h:
kernel/mem/pcp.h:
kernel/mem/kmem.h:
kernel/core/panic.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/lib/errno.h:
kernel/core/smp.h:
kernel/platform/acpi_tables.h:
kernel/arch/x86_64/smpboot.h:
kernel/mem/memmap.h:
