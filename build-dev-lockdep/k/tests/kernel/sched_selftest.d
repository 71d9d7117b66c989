build-dev-lockdep/k/tests/kernel/sched_selftest.o: \
 tests/kernel/sched_selftest.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 tests/kernel/selftest.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/core/sched.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/core/runq.h \
 kernel/lib/list.h kernel/core/time.h kernel/core/wait.h \
 kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/sched.h \
 kernel/core/console.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/core/record.h kernel/lib/json.h kernel/core/time.h \
 kernel/vm/vmstat.h kernel/vm/vm.h kernel/vm/vma.h kernel/core/spinlock.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
tests/kernel/selftest.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/core/sched.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
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
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/time.h:
kernel/vm/vmstat.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/core/spinlock.h:
