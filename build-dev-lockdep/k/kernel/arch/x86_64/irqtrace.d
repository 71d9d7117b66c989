build-dev-lockdep/k/kernel/arch/x86_64/irqtrace.o: \
 kernel/arch/x86_64/irqtrace.c kernel/arch/x86_64/irqtrace.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h
kernel/arch/x86_64/irqtrace.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
