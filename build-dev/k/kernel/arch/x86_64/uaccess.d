build-dev/k/kernel/arch/x86_64/uaccess.o: kernel/arch/x86_64/uaccess.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/arch/x86_64/uaccess.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/arch/x86_64/trap.h kernel/lib/errno.h kernel/mem/layout.h \
 kernel/arch/x86_64/x86.h kernel/arch/x86_64/irqtrace.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/arch/x86_64/uaccess.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/arch/x86_64/trap.h:
kernel/lib/errno.h:
kernel/mem/layout.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
