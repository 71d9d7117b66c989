build-dev-lockdep/k/kernel/mem/pgtable.o: kernel/mem/pgtable.c \
 kernel/mem/pgtable.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/mem/kmem.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/mem/memmap.h \
 boot/boot_info.h kernel/mem/layout.h kernel/lib/errno.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h
kernel/mem/pgtable.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/mem/kmem.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/layout.h:
kernel/lib/errno.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
