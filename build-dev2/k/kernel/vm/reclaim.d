build-dev2/k/kernel/vm/reclaim.o: kernel/vm/reclaim.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/vm/reclaim.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/vm/lru.h \
 kernel/mem/page.h kernel/lib/list.h kernel/vm/lru_policy.h \
 kernel/vm/rmap.h kernel/swap/swap.h kernel/swap/swapalloc.h \
 kernel/swap/swapcache.h kernel/vm/shmem.h kernel/core/spinlock.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/mem/pmm.h kernel/mem/page.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/vm/page_ref.h kernel/vm/vmstat.h kernel/vm/workingset.h \
 kernel/core/console.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/core/record.h kernel/lib/json.h kernel/core/config.h \
 kernel/core/panic.h kernel/core/sched.h kernel/core/runq.h \
 kernel/core/time.h kernel/core/wait.h kernel/core/spinlock.h \
 kernel/core/sched.h kernel/lib/errno.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/vm/reclaim.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/vm/lru.h:
kernel/mem/page.h:
kernel/lib/list.h:
kernel/vm/lru_policy.h:
kernel/vm/rmap.h:
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
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/vm/page_ref.h:
kernel/vm/vmstat.h:
kernel/vm/workingset.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/config.h:
kernel/core/panic.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/core/sched.h:
kernel/lib/errno.h:
