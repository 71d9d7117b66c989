build-dev-lockdep/k/kernel/lib/stats.o: kernel/lib/stats.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/lib/stats.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/lib/printf.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/lib/errno.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/lib/stats.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/lib/printf.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/errno.h:
