build-dev2/k/kernel/proc/syscall.o: kernel/proc/syscall.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/proc/task.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/list.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/wait.h \
 kernel/core/spinlock.h kernel/core/sched.h kernel/core/runq.h \
 kernel/core/time.h kernel/vm/vm.h kernel/vm/vma.h kernel/core/sched.h \
 kernel/proc/futex.h kernel/proc/file.h kernel/proc/procfs.h \
 kernel/proc/syscall.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/lib/errno.h \
 kernel/lib/timemath.h kernel/mem/layout.h kernel/arch/x86_64/cpu.h \
 kernel/arch/x86_64/trap.h kernel/arch/x86_64/tsc.h \
 kernel/arch/x86_64/uaccess.h kernel/arch/x86_64/trap.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/proc/task.h:
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
kernel/core/wait.h:
kernel/core/spinlock.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/core/sched.h:
kernel/proc/futex.h:
kernel/proc/file.h:
kernel/proc/procfs.h:
kernel/proc/syscall.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/errno.h:
kernel/lib/timemath.h:
kernel/mem/layout.h:
kernel/arch/x86_64/cpu.h:
kernel/arch/x86_64/trap.h:
kernel/arch/x86_64/tsc.h:
kernel/arch/x86_64/uaccess.h:
kernel/arch/x86_64/trap.h:
