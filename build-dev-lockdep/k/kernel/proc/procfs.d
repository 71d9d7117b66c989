build-dev-lockdep/k/kernel/proc/procfs.o: kernel/proc/procfs.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/proc/procfs.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/proc/procfs_text.h kernel/proc/task.h kernel/lib/list.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/wait.h \
 kernel/core/spinlock.h kernel/core/sched.h kernel/core/runq.h \
 kernel/core/time.h kernel/vm/vm.h kernel/vm/vma.h kernel/core/bootfs.h \
 boot/boot_info.h kernel/lib/errno.h kernel/lib/printf.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/mem/pmm.h \
 kernel/mem/page.h kernel/mem/memmap.h kernel/mem/kmalloc.h \
 kernel/vm/lru.h kernel/mem/page.h kernel/vm/shmem.h kernel/vm/vmstat.h \
 kernel/vm/reclaim.h kernel/swap/swap.h kernel/swap/swapalloc.h \
 kernel/swap/swapcache.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/proc/procfs.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/proc/procfs_text.h:
kernel/proc/task.h:
kernel/lib/list.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/core/bootfs.h:
boot/boot_info.h:
kernel/lib/errno.h:
kernel/lib/printf.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
kernel/mem/kmalloc.h:
kernel/vm/lru.h:
kernel/mem/page.h:
kernel/vm/shmem.h:
kernel/vm/vmstat.h:
kernel/vm/reclaim.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/swap/swapcache.h:
