build-dev/k/kernel/proc/futex.o: kernel/proc/futex.c kernel/proc/futex.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/core/sched.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/core/runq.h \
 kernel/lib/list.h kernel/core/time.h kernel/core/wait.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/sched.h \
 kernel/proc/task.h kernel/core/spinlock.h kernel/vm/vm.h kernel/vm/vma.h \
 kernel/lib/errno.h kernel/arch/x86_64/uaccess.h \
 kernel/arch/x86_64/trap.h
kernel/proc/futex.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/core/sched.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/core/runq.h:
kernel/lib/list.h:
kernel/core/time.h:
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/sched.h:
kernel/proc/task.h:
kernel/core/spinlock.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/lib/errno.h:
kernel/arch/x86_64/uaccess.h:
kernel/arch/x86_64/trap.h:
