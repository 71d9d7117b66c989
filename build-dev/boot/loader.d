build-dev/boot/loader.o: boot/loader.c /usr/include/efi/efi.h \
 /usr/include/efi/x86_64/efibind.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h \
 /usr/include/efi/eficompiler.h /usr/include/efi/efidef.h \
 /usr/include/efi/efidevp.h /usr/include/efi/efipciio.h \
 /usr/include/efi/efiprot.h /usr/include/efi/eficon.h \
 /usr/include/efi/eficonex.h /usr/include/efi/efiser.h \
 /usr/include/efi/efi_nii.h /usr/include/efi/efipxebc.h \
 /usr/include/efi/efinet.h /usr/include/efi/efiapi.h \
 /usr/include/efi/efifs.h /usr/include/efi/efierr.h \
 /usr/include/efi/efiui.h /usr/include/efi/efiip.h \
 /usr/include/efi/efiudp.h /usr/include/efi/efitcp.h \
 /usr/include/efi/efipoint.h /usr/include/efi/efishell.h \
 /usr/include/efi/efilink.h /usr/include/efi/efilib.h \
 /usr/include/efi/efidebug.h /usr/include/efi/efipart.h \
 /usr/include/efi/x86_64/efilibplat.h /usr/include/efi/efirtlib.h \
 /usr/include/efi/efistdarg.h /usr/include/efi/pci22.h \
 /usr/include/efi/libsmbios.h /usr/include/elf.h \
 /usr/include/x86_64-linux-gnu/bits/auxv.h boot/boot_info.h boot/fat.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h
/usr/include/efi/efi.h:
/usr/include/efi/x86_64/efibind.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stdint-gcc.h:
/usr/include/efi/eficompiler.h:
/usr/include/efi/efidef.h:
/usr/include/efi/efidevp.h:
/usr/include/efi/efipciio.h:
/usr/include/efi/efiprot.h:
/usr/include/efi/eficon.h:
/usr/include/efi/eficonex.h:
/usr/include/efi/efiser.h:
/usr/include/efi/efi_nii.h:
/usr/include/efi/efipxebc.h:
/usr/include/efi/efinet.h:
/usr/include/efi/efiapi.h:
/usr/include/efi/efifs.h:
/usr/include/efi/efierr.h:
/usr/include/efi/efiui.h:
/usr/include/efi/efiip.h:
/usr/include/efi/efiudp.h:
/usr/include/efi/efitcp.h:
/usr/include/efi/efipoint.h:
/usr/include/efi/efishell.h:
/usr/include/efi/efilink.h:
/usr/include/efi/efilib.h:
/usr/include/efi/efidebug.h:
/usr/include/efi/efipart.h:
/usr/include/efi/x86_64/efilibplat.h:
/usr/include/efi/efirtlib.h:
/usr/include/efi/efistdarg.h:
/usr/include/efi/pci22.h:
/usr/include/efi/libsmbios.h:
/usr/include/elf.h:
/usr/include/x86_64-linux-gnu/bits/auxv.h:
boot/boot_info.h:
boot/fat.h:
/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h:
