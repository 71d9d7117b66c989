build-dev2/k/kernel/core/sched.o: kernel/core/sched.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/core/sched.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/core/runq.h \
 kernel/lib/list.h kernel/core/time.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/record.h \
 kernel/lib/json.h kernel/core/panic.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/cpu.h \
 kernel/arch/x86_64/entry.h kernel/arch/x86_64/percpu.h \
 kernel/arch/x86_64/tsc.h kernel/arch/x86_64/trap.h kernel/lib/timemath.h \
 kernel/mem/kmalloc.h kernel/mem/kmem.h kernel/mem/memmap.h \
 boot/boot_info.h kernel/core/spinlock.h kernel/core/lockstat.h \
 kernel/core/lockdep.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/core/sched.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/core/runq.h:
kernel/lib/list.h:
kernel/core/time.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/panic.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/cpu.h:
kernel/arch/x86_64/entry.h:
kernel/arch/x86_64/percpu.h:
kernel/arch/x86_64/tsc.h:
kernel/arch/x86_64/trap.h:
kernel/lib/timemath.h:
kernel/mem/kmalloc.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/core/spinlock.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
