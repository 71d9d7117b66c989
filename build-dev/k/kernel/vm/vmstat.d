build-dev/k/kernel/vm/vmstat.o: kernel/vm/vmstat.c kernel/vm/vmstat.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/mem/pmm.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/mem/page.h \
 kernel/lib/list.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/mem/memmap.h boot/boot_info.h kernel/vm/lru.h kernel/mem/page.h \
 kernel/swap/swap.h kernel/swap/swapalloc.h kernel/swap/swapcache.h \
 kernel/vm/shmem.h kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/record.h \
 kernel/lib/json.h kernel/core/time.h kernel/core/sched.h \
 kernel/core/runq.h kernel/core/time.h
kernel/vm/vmstat.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/mem/pmm.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/mem/page.h:
kernel/lib/list.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/vm/lru.h:
kernel/mem/page.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/swap/swapcache.h:
kernel/vm/shmem.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/time.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
