from mmtools.cpio import Cpio, read_newc

import pytest


def test_read_newc_round_trip():
    c = Cpio()
    c.dir('scripts')
    c.file('scripts/a.mm', b'mem 128M\n')
    c.file('bin/odd', b'x' * 5, mode=0o755)
    c.chardev('dev/console', 5, 1)
    data = c.finish()
    entries = read_newc(data)
    assert [e[0] for e in entries] == ['scripts', 'scripts/a.mm', 'bin/odd', 'dev/console']
    assert entries[1][4] == b'mem 128M\n' and entries[2][1] == 0o100755 and entries[3][3] == (5, 1)
    again = Cpio()
    again.copy(entries)
    assert again.finish() == data


def test_read_newc_rejects_other_formats():
    with pytest.raises(ValueError):
        read_newc(b'070707' + b'0' * 200)
