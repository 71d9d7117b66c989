build-dev/k/kernel/platform/fbcon.o: kernel/platform/fbcon.c \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h kernel/lib/string.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 kernel/platform/fbcon.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h boot/boot_info.h \
 build-dev/gen/font8x16.h
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdbool.h:
kernel/lib/string.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
kernel/platform/fbcon.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
boot/boot_info.h:
build-dev/gen/font8x16.h:
