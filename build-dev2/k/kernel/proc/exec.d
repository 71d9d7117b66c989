build-dev2/k/kernel/proc/exec.o: kernel/proc/exec.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/proc/exec.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/proc/elf.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/proc/auxv.h \
 kernel/vm/vm.h kernel/vm/vma.h kernel/core/wait.h kernel/lib/list.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/sched.h \
 kernel/core/runq.h kernel/core/time.h kernel/core/spinlock.h \
 kernel/mem/kmalloc.h kernel/lib/printf.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/lib/errno.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/proc/exec.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/proc/elf.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/proc/auxv.h:
kernel/vm/vm.h:
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
kernel/mem/kmalloc.h:
kernel/lib/printf.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/errno.h:
