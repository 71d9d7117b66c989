build-dev/k/kernel/vm/knobs.o: kernel/vm/knobs.c kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h kernel/vm/knobs.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/vm/reclaim.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 kernel/vm/workingset.h kernel/swap/readahead.h kernel/swap/swap.h \
 kernel/swap/swapalloc.h kernel/swap/swapcache.h kernel/core/config.h \
 kernel/core/knob_table.h kernel/mem/pmm.h kernel/mem/page.h \
 kernel/lib/list.h kernel/mem/memmap.h boot/boot_info.h \
 kernel/lib/printf.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 kernel/lib/json.h kernel/lib/errno.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/vm/knobs.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/vm/reclaim.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
kernel/vm/workingset.h:
kernel/swap/readahead.h:
kernel/swap/swap.h:
kernel/swap/swapalloc.h:
kernel/swap/swapcache.h:
kernel/core/config.h:
kernel/core/knob_table.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/lib/list.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/lib/printf.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/lib/json.h:
kernel/lib/errno.h:
