build-dev2/k/tests/kernel/pmm_selftest.o: tests/kernel/pmm_selftest.c \
 tests/kernel/selftest.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/time.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/lib/list.h \
 kernel/mem/pmm.h kernel/mem/page.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/lib/json.h kernel/lib/timemath.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h
tests/kernel/selftest.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/time.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/lib/list.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/lib/json.h:
kernel/lib/timemath.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
