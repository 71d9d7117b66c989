build-dev-lockdep/k/kernel/core/smp.o: kernel/core/smp.c \
 kernel/core/smp.h /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h \
 kernel/platform/acpi_tables.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h
kernel/core/smp.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/platform/acpi_tables.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
