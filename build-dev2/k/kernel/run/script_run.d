build-dev2/k/kernel/run/script_run.o: kernel/run/script_run.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/run/script.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/lib/stats.h \
 kernel/run/probe.h kernel/core/lockstat.h kernel/core/bootfs.h \
 boot/boot_info.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/record.h \
 kernel/lib/json.h kernel/run/membal.h drivers/blk.h kernel/lib/list.h \
 kernel/lib/errno.h kernel/lib/printf.h kernel/run/rtable.h \
 kernel/vm/knobs.h kernel/mem/kmalloc.h kernel/swap/swap.h \
 kernel/swap/swapalloc.h kernel/swap/swapin.h kernel/vm/vm.h \
 kernel/vm/vma.h kernel/core/wait.h kernel/core/spinlock.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h \
 kernel/core/spinlock.h kernel/vm/vmstat.h kernel/core/sched.h \
 kernel/proc/task.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/run/script.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/lib/stats.h:
kernel/run/probe.h:
kernel/core/lockstat.h:
kernel/core/bootfs.h:
boot/boot_info.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/run/membal.h:
drivers/blk.h:
kernel/lib/list.h:
kernel/lib/errno.h:
kernel/lib/printf.h:
kernel/run/rtable.h:
kernel/vm/knobs.h:
kernel/mem/kmalloc.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/swap/swapin.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
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
kernel/core/spinlock.h:
kernel/vm/vmstat.h:
kernel/core/sched.h:
kernel/proc/task.h:
