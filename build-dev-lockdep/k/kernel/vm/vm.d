build-dev-lockdep/k/kernel/vm/vm.o: kernel/vm/vm.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/vm/vm.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/vm/vma.h \
 kernel/core/wait.h kernel/lib/list.h kernel/core/spinlock.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h \
 kernel/core/spinlock.h kernel/mem/page.h kernel/mem/pmm.h \
 kernel/mem/page.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/vm/page_ref.h kernel/mem/pgtable.h kernel/mem/kmem.h \
 kernel/mem/kmalloc.h kernel/vm/shmem.h kernel/vm/lru.h \
 kernel/swap/swap.h kernel/swap/swapalloc.h kernel/swap/swapcache.h \
 kernel/swap/swapin.h kernel/vm/vm.h kernel/swap/readahead.h \
 kernel/vm/reclaim.h kernel/vm/vmstat.h kernel/mem/layout.h \
 kernel/core/panic.h kernel/core/time.h kernel/lib/errno.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/vm/vm.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
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
kernel/mem/page.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/vm/page_ref.h:
kernel/mem/pgtable.h:
kernel/mem/kmem.h:
kernel/mem/kmalloc.h:
kernel/vm/shmem.h:
kernel/vm/lru.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/swap/swapcache.h:
kernel/swap/swapin.h:
kernel/vm/vm.h:
kernel/swap/readahead.h:
kernel/vm/reclaim.h:
kernel/vm/vmstat.h:
kernel/mem/layout.h:
kernel/core/panic.h:
kernel/core/time.h:
kernel/lib/errno.h:
