build-dev-lockdep/k/kernel/swap/readahead.o: kernel/swap/readahead.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/swap/readahead.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/swap/ra_policy.h kernel/swap/swap.h kernel/swap/swapalloc.h \
 kernel/vm/shmem.h kernel/lib/list.h kernel/core/spinlock.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/vm/vm.h kernel/vm/vma.h kernel/core/wait.h kernel/core/spinlock.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h \
 kernel/mem/pgtable.h kernel/mem/pmm.h kernel/mem/page.h \
 kernel/mem/memmap.h boot/boot_info.h kernel/mem/kmalloc.h \
 kernel/vm/vmstat.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/swap/readahead.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/swap/ra_policy.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/vm/shmem.h:
kernel/lib/list.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/mem/pgtable.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/kmalloc.h:
kernel/vm/vmstat.h:
