build-dev-lockdep/k/kernel/run/membal.o: kernel/run/membal.c \
 kernel/run/membal.h kernel/core/record.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h kernel/lib/json.h \
 kernel/vm/knobs.h kernel/mem/pmm.h kernel/mem/page.h kernel/lib/list.h \
 kernel/mem/memmap.h boot/boot_info.h kernel/swap/swap.h \
 kernel/swap/swapalloc.h kernel/core/sched.h kernel/core/runq.h \
 kernel/core/time.h
kernel/run/membal.h:
kernel/core/record.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/lib/json.h:
kernel/vm/knobs.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/lib/list.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
