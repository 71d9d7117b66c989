from mmtools import rig


def test_icount_flags():
    base = rig.qemu_command('x.img')
    assert '-icount' not in base
    on = rig.qemu_command('x.img', icount=True)
    assert on[on.index('-icount') + 1] == 'shift=0'
    ex = rig.qemu_command('x.img', icount='exact')
    assert ex[ex.index('-icount') + 1] == 'shift=0,sleep=off'


def test_direct_kernel_has_no_firmware_and_same_machine():
    d = rig.qemu_command(None, mem='256M', disks=[{'file': 's.img', 'bus': 'sata'}], profile='ssd', icount=True,
                         direct={'kernel': 'vmlinuz', 'initrd': 'i.gz', 'append': 'console=ttyS0'})
    assert d[d.index('-kernel') + 1] == 'vmlinuz' and 'if=pflash' not in ' '.join(d)
    assert d[d.index('-machine') + 1] == 'q35' and d[d.index('-m') + 1] == '256M'
    assert 'ide-hd,drive=disk0,bus=ide.1' in d
    assert any('throttling.iops-total=700' in a for a in d)


def test_status():
    ok = rig.Result(0, '', [{'type': 'halt', 'status': 'ok'}], False, 1.0)
    assert ok.status == 'ok'
    assert rig.Result(0, '', [{'type': 'halt', 'status': 'panic'}], False, 1.0).status == 'panic'
    assert rig.Result(-9, '', [], True, 9.0).status == 'timeout'
    assert rig.Result(1, '', [], False, 1.0).status == 'qemu-error'
    assert rig.Result(0, '', [], False, 1.0).status == 'powered-off-early'


def test_usb_disks_share_one_xhci_and_the_hub_boot():
    d = rig.qemu_command('x.img', disks=[{'file': 'a.img', 'bus': 'usb'}, {'file': 'b.img', 'bus': 'usb'}],
                         profile='ssd')
    assert d.count('qemu-xhci,id=xdisks') == 1
    assert 'usb-storage,bus=xdisks.0,drive=disk0' in d and 'usb-storage,bus=xdisks.0,drive=disk1' in d
    assert sum('throttling.iops-total=700' in a for a in d) == 2
    h = rig.qemu_command('x.img', boot='usb-hub')
    assert 'usb-hub,bus=xhci.0,port=1' in h
    assert 'usb-storage,bus=xhci.0,port=1.1,drive=boot,removable=on,bootindex=0' in h
