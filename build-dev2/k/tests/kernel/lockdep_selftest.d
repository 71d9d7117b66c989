build-dev2/k/tests/kernel/lockdep_selftest.o: \
 tests/kernel/lockdep_selftest.c tests/kernel/selftest.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/spinlock.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockstat.h kernel/core/lockdep.h \
 kernel/core/lockdep.h kernel/lib/json.h
tests/kernel/selftest.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/spinlock.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/lockdep.h:
kernel/lib/json.h:
