build-dev-lockdep/k/kernel/proc/auxv.o: kernel/proc/auxv.c \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/proc/auxv.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/proc/auxv.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
