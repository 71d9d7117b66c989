build-dev/k/kernel/core/ksyms.o: kernel/core/ksyms.c kernel/core/ksyms.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/mem/layout.h
kernel/core/ksyms.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/mem/layout.h:
