build-dev2/k/kernel/run/results.o: kernel/run/results.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/run/results.h boot/boot_info.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/core/record.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/lib/json.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/panic.h \
 kernel/lib/errno.h kernel/run/results_log.h drivers/blk.h \
 kernel/lib/list.h kernel/mem/pmm.h kernel/mem/page.h kernel/mem/memmap.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h \
 kernel/core/wait.h kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/sched.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/run/results.h:
boot/boot_info.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/core/record.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/json.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/panic.h:
kernel/lib/errno.h:
kernel/run/results_log.h:
drivers/blk.h:
kernel/lib/list.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/sched.h:
