build-dev/k/drivers/blk.o: drivers/blk.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h drivers/blk_driver.h \
 drivers/blk.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/list.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h drivers/blk_merge.h \
 drivers/gpt.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/record.h \
 kernel/lib/json.h kernel/core/panic.h kernel/core/time.h \
 kernel/lib/errno.h kernel/lib/timemath.h kernel/lib/printf.h \
 kernel/mem/kmalloc.h kernel/mem/kmem.h kernel/mem/memmap.h \
 boot/boot_info.h kernel/mem/pmm.h kernel/mem/page.h \
 kernel/arch/x86_64/tsc.h kernel/core/wait.h kernel/core/spinlock.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
drivers/blk_driver.h:
drivers/blk.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/list.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
drivers/blk_merge.h:
drivers/gpt.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/panic.h:
kernel/core/time.h:
kernel/lib/errno.h:
kernel/lib/timemath.h:
kernel/lib/printf.h:
kernel/mem/kmalloc.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/arch/x86_64/tsc.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
