build-dev2/k/kernel/mem/kmalloc.o: kernel/mem/kmalloc.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/mem/kmalloc.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/mem/pmm.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/mem/page.h \
 kernel/lib/list.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/core/panic.h kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/mem/kmalloc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/mem/pmm.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/mem/page.h:
kernel/lib/list.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/core/panic.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
