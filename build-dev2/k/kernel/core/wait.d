build-dev2/k/kernel/core/wait.o: kernel/core/wait.c kernel/core/wait.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/list.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/core/spinlock.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/core/sched.h kernel/core/runq.h kernel/core/time.h \
 kernel/core/panic.h kernel/lib/errno.h
kernel/core/wait.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/list.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/core/panic.h:
kernel/lib/errno.h:
