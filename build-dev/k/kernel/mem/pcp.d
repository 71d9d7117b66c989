build-dev/k/kernel/mem/pcp.o: kernel/mem/pcp.c kernel/mem/pcp.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/mem/page.h \
 kernel/lib/list.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/mem/buddy.h
kernel/mem/pcp.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/mem/page.h:
kernel/lib/list.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/mem/buddy.h:
