build-dev/k/kernel/core/bootfs.o: kernel/core/bootfs.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/core/bootfs.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h boot/boot_info.h \
 kernel/lib/printf.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/mem/kmem.h kernel/mem/memmap.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/core/bootfs.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
boot/boot_info.h:
kernel/lib/printf.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/mem/kmem.h:
kernel/mem/memmap.h:
