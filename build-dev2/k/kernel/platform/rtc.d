build-dev2/k/kernel/platform/rtc.o: kernel/platform/rtc.c \
 kernel/platform/rtc.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h
kernel/platform/rtc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
