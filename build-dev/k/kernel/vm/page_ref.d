build-dev/k/kernel/vm/page_ref.o: kernel/vm/page_ref.c \
 kernel/vm/page_ref.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/mem/page.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/lib/list.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/vm/lru.h \
 kernel/mem/pmm.h kernel/mem/page.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/core/panic.h kernel/core/wait.h kernel/core/spinlock.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h
kernel/vm/page_ref.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/mem/page.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/lib/list.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/vm/lru.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/core/panic.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
