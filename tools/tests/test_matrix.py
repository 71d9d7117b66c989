from mmtools import matrix, mkscript


def test_self_test_passes(capsys):
    assert matrix.self_test() == 0
    assert '0 failed' in capsys.readouterr().out


def test_words_like_the_kernel():
    assert mkscript.words('run touch 8 "a b" # c') == ['run', 'touch', '8', 'a b']
    assert mkscript.words('  "q\\"x"') == ['q"x']
    try:
        mkscript.words('run "open')
        assert False, 'unterminated quote accepted'
    except ValueError as e:
        assert 'unterminated quote' in str(e)


SHMDB = '''mem 128M
swap nvme1n1
column "a"
    run stream /dev/nvme2n1 1024 mmap-read 20% 60 # not /dev/nvme3n1p1
data sata2
'''


def test_data_disks_are_attached_blank():
    """A disk a run line reads (seed003-shmdb.mm's stream) or a data line
    names is attached, not mkswap'ed; without it stream failed with ENOENT
    in every run."""
    assert matrix.data_devices(SHMDB, [('nvme', 1)]) == [('nvme', 2), ('sata', 2)]
    text, plan, label, note = matrix.prepare(SHMDB, None)
    assert plan == [('nvme', 1, matrix.SWAP), ('nvme', 2, matrix.DATA), ('sata', 1, matrix.FILLER),
                    ('sata', 2, matrix.DATA)]
    # A swap disk read by a run line stays a swap disk; auto takes disk 1.
    assert matrix.data_devices('swap nvme1n1\nrun x /dev/nvme1n1\n', [('nvme', 1)]) == []
    assert matrix.prepare('run stream /dev/nvme2n1 8 read\n', None)[1] == [('nvme', 1, matrix.SWAP),
                                                                            ('nvme', 2, matrix.DATA)]
    try:
        matrix.prepare('run stream /dev/nvme1n1 8 read\n', None)
        assert False, 'auto swap and a data disk shared nvme1n1'
    except ValueError as e:
        assert 'nvme1n1 is named as a data disk' in str(e)


def test_make_disks_sizes_and_signs(tmp_path, monkeypatch):
    from mmtools import remote
    signed = []
    monkeypatch.setattr(remote.subprocess, 'run', lambda argv, **kw: signed.append(argv[-1]))
    plan = [('nvme', 1, matrix.SWAP), ('nvme', 2, matrix.DATA), ('sata', 1, matrix.FILLER)]
    assert remote.decode_plan(remote.encode_plan(plan)) == plan
    disks = remote.make_disks(plan, str(tmp_path), 'k', 64)
    sizes = [(tmp_path / ('k-%s.img' % n)).stat().st_size >> 20 for n in ('nvme1n1', 'nvme2n1', 'sata1')]
    assert sizes == [64, remote.DATA_MIB, 1]
    assert signed == [disks[0]['file']]
