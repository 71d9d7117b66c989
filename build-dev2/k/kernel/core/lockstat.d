build-dev2/k/kernel/core/lockstat.o: kernel/core/lockstat.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/core/lockstat.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/core/spinlock.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h \
 kernel/arch/x86_64/percpu.h kernel/core/lockdep.h kernel/core/record.h \
 kernel/lib/json.h kernel/core/ksyms.h kernel/core/time.h \
 kernel/lib/list.h kernel/lib/timemath.h kernel/arch/x86_64/irqtrace.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/core/lockstat.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/core/spinlock.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockdep.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/ksyms.h:
kernel/core/time.h:
kernel/lib/list.h:
kernel/lib/timemath.h:
kernel/arch/x86_64/irqtrace.h:
