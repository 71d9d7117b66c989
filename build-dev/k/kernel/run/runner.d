build-dev/k/kernel/run/runner.o: kernel/run/runner.c kernel/run/runner.h \
 kernel/run/script.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/core/console.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/lib/errno.h kernel/mem/kmalloc.h
kernel/run/runner.h:
kernel/run/script.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/errno.h:
kernel/mem/kmalloc.h:
