build-dev-lockdep/k/tests/kernel/selftest.o: tests/kernel/selftest.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 tests/kernel/selftest.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/panic.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/core/record.h kernel/lib/json.h kernel/mem/pmm.h \
 kernel/mem/page.h kernel/lib/list.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/mem/kmalloc.h kernel/mem/kmem.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
tests/kernel/selftest.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/panic.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/lib/list.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/mem/kmalloc.h:
kernel/mem/kmem.h:
