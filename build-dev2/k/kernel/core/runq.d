build-dev2/k/kernel/core/runq.o: kernel/core/runq.c kernel/core/runq.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/list.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h
kernel/core/runq.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/list.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
