build-dev-lockdep/k/kernel/swap/swapin.o: kernel/swap/swapin.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/swap/swapin.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/vm/vm.h \
 kernel/vm/vma.h kernel/core/wait.h kernel/lib/list.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/sched.h \
 kernel/core/runq.h kernel/core/time.h kernel/core/spinlock.h \
 kernel/swap/swap.h kernel/swap/swapalloc.h kernel/swap/swapcache.h \
 kernel/swap/readahead.h kernel/vm/reclaim.h kernel/vm/shmem.h \
 kernel/vm/lru.h kernel/mem/page.h kernel/mem/pmm.h kernel/mem/page.h \
 kernel/mem/memmap.h boot/boot_info.h kernel/vm/page_ref.h \
 kernel/mem/pgtable.h kernel/mem/kmalloc.h kernel/vm/vmstat.h \
 kernel/vm/workingset.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/lib/errno.h \
 kernel/core/sched.h kernel/core/time.h kernel/lib/stats.h \
 kernel/lib/json.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/swap/swapin.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/core/wait.h:
kernel/lib/list.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/core/spinlock.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/swap/swapcache.h:
kernel/swap/readahead.h:
kernel/vm/reclaim.h:
kernel/vm/shmem.h:
kernel/vm/lru.h:
kernel/mem/page.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/vm/page_ref.h:
kernel/mem/pgtable.h:
kernel/mem/kmalloc.h:
kernel/vm/vmstat.h:
kernel/vm/workingset.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/errno.h:
kernel/core/sched.h:
kernel/core/time.h:
kernel/lib/stats.h:
kernel/lib/json.h:
