build-dev-lockdep/k/kernel/vm/workingset.o: kernel/vm/workingset.c \
 kernel/vm/workingset.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/vm/workingset_policy.h kernel/vm/lru.h kernel/mem/page.h \
 kernel/lib/list.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/vm/vmstat.h kernel/mem/pmm.h kernel/mem/page.h \
 kernel/mem/memmap.h boot/boot_info.h kernel/swap/swap.h \
 kernel/swap/swapalloc.h kernel/swap/swapcache.h kernel/core/config.h
kernel/vm/workingset.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/vm/workingset_policy.h:
kernel/vm/lru.h:
kernel/mem/page.h:
kernel/lib/list.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/vm/vmstat.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/swap/swapcache.h:
kernel/core/config.h:
