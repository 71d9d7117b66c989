build-dev2/k/kernel/lib/cmdline.o: kernel/lib/cmdline.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/lib/cmdline.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/lib/printf.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/lib/cmdline.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/lib/printf.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
