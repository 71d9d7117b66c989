build-dev-lockdep/k/kernel/swap/swap.o: kernel/swap/swap.c \
 kernel/lib/string.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/swap/swap.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/swap/swapalloc.h kernel/swap/swaphdr.h kernel/swap/swapcache.h \
 kernel/swap/swapin.h kernel/vm/vm.h kernel/vm/vma.h kernel/core/wait.h \
 kernel/lib/list.h kernel/core/spinlock.h kernel/arch/x86_64/x86.h \
 kernel/arch/x86_64/irqtrace.h kernel/arch/x86_64/percpu.h \
 kernel/core/lockstat.h kernel/core/lockdep.h kernel/core/sched.h \
 kernel/core/runq.h kernel/core/time.h kernel/core/spinlock.h \
 kernel/core/time.h kernel/mem/page.h kernel/mem/pmm.h kernel/mem/page.h \
 kernel/mem/memmap.h boot/boot_info.h kernel/vm/page_ref.h \
 kernel/mem/kmalloc.h kernel/vm/vmstat.h kernel/core/console.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h kernel/core/record.h \
 kernel/lib/json.h kernel/core/config.h kernel/core/knob_table.h \
 kernel/lib/crc32.h kernel/lib/errno.h kernel/lib/printf.h drivers/blk.h \
 drivers/gpt.h kernel/lib/cmdline.h kernel/arch/x86_64/smpboot.h \
 kernel/mem/memmap.h kernel/platform/acpi_tables.h
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/swap/swap.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/swap/swapalloc.h:
kernel/swap/swaphdr.h:
kernel/swap/swapcache.h:
kernel/swap/swapin.h:
kernel/vm/vm.h:
kernel/vm/vma.h:
kernel/core/wait.h:
kernel/lib/list.h:
kernel/core/spinlock.h:
kernel/arch/x86_64/x86.h:
kernel/arch/x86_64/irqtrace.h:
kernel/arch/x86_64/percpu.h:
kernel/core/lockstat.h:
kernel/core/lockdep.h:
kernel/core/sched.h:
kernel/core/runq.h:
kernel/core/time.h:
kernel/core/spinlock.h:
kernel/core/time.h:
kernel/mem/page.h:
kernel/mem/pmm.h:
kernel/mem/page.h:
kernel/mem/memmap.h:
boot/boot_info.h:
kernel/vm/page_ref.h:
kernel/mem/kmalloc.h:
kernel/vm/vmstat.h:
kernel/core/console.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h:
kernel/core/record.h:
kernel/lib/json.h:
kernel/core/config.h:
kernel/core/knob_table.h:
kernel/lib/crc32.h:
kernel/lib/errno.h:
kernel/lib/printf.h:
drivers/blk.h:
drivers/gpt.h:
kernel/lib/cmdline.h:
kernel/arch/x86_64/smpboot.h:
kernel/mem/memmap.h:
kernel/platform/acpi_tables.h:
