"""The PVH entry (QEMU -kernel, no firmware; kernel/arch/x86_64/pvh.c):
the fast path most cases boot through, checked on its own here: what it
reports, and a damaged initrd named in one line with the files before the
damage still there."""
import os

from rig import expect, expect_ok, expect_in_log, boot_record, qemurig


def pvh_boot(ctx, initrd, cmdline, log='log'):
    r = qemurig.run(ctx.image, cmdline=cmdline, timeout=60, log_path=ctx.path(log), workdir=ctx.outdir,
                    pvh={'kernel': os.path.join(ctx.build, 'kernel.elf'), 'initrd': initrd})
    ctx.runs.append((ctx.path(log), r))
    return r


def regular_files(arc):
    """Regular files in the whole newc entries of arc."""
    off, n = 0, 0
    while off + 110 <= len(arc):
        mode, size, namesize = (int(arc[off + 6 + 8 * i:off + 14 + 8 * i], 16) for i in (1, 6, 11))
        data = (off + 110 + namesize + 3) & ~3
        n += (mode & 0o170000) == 0o100000
        off = (data + size + 3) & ~3
    return n


def test_pvh_boot_reports_itself(ctx):
    r = pvh_boot(ctx, ctx.initrd, 'quiet run=hello')
    expect_ok(r)
    b = boot_record(r)
    expect(b['firmware'] == 'QEMU PVH (-kernel, no UEFI)', 'firmware %r' % b['firmware'])
    with open(ctx.initrd, 'rb') as f:
        want = regular_files(f.read())
    expect(b['files'] == want and want > 10, 'files %r, the initrd holds %d' % (b['files'], want))
    expect_in_log(r, 'results: no results file: PVH boot: no ESP, records on the console only')
    expect_in_log(r, 'hello from hello')


def test_pvh_damaged_initrd_named(ctx):
    # Cut the archive inside its last file's name: every file before it is
    # still there (hello runs), and one line says what is wrong and where.
    with open(ctx.initrd, 'rb') as f:
        data = f.read()
    last = data.rfind(b'070701', 0, data.rfind(b'070701', 0, data.rfind(b'TRAILER!!!')))
    cut = last + 115
    bad = ctx.path('cpio')
    with open(bad, 'wb') as f:
        f.write(data[:cut])
    r = pvh_boot(ctx, bad, 'quiet run=hello')
    expect_ok(r)
    expect_in_log(r, 'results: no results file: PVH boot: initrd: truncated at offset %d' % last)
    expect_in_log(r, 'hello from hello')
    expect(boot_record(r)['files'] == regular_files(data[:last]), 'files %r, want %d' %
           (boot_record(r)['files'], regular_files(data[:last])))
