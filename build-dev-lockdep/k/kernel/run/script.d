build-dev-lockdep/k/kernel/run/script.o: kernel/run/script.c \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/run/script.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/core/knob_table.h kernel/lib/cmdline.h kernel/lib/printf.h \
 kernel/lib/errno.h
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/run/script.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/core/knob_table.h:
kernel/lib/cmdline.h:
kernel/lib/printf.h:
kernel/lib/errno.h:
