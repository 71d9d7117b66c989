"""QEMU cases for the results file on the ESP (README, "Results file"):
the loader pre-allocates results/NNNN.jsonl, the kernel writes its records
into it through NVMe or AHCI, and tools/results reads it back."""
import filecmp
import json
import os
import re
import shutil
import subprocess

import pytest

from rig import expect, expect_ok, expect_in_log

# The firmware, the UEFI loader, the ESP or the results file is what these
# cases test: never the PVH shortcut (rig.Ctx.pvh_ok).
pytestmark = pytest.mark.uefi

SCRIPT = '''# results-file test: two short runs, one table
mem 48M
column "touch"
repeat 2
    run touch 8 1000 seq anon
end
'''

# Records printed after the results file's last write, console only: the
# NVMe driver's statistics (its shutdown hook runs after the file's) and
# the halt record itself.  Every report hook runs before the last write.
AFTER_LAST_WRITE = {'nvme_stats', 'halt'}


def script_image(ctx):
    path = ctx.path('mm')
    with open(path, 'w') as f:
        f.write(SCRIPT)
    files = [path + ':scripts/tiny.mm', '%s/workloads/touch:bin/touch' % ctx.build]
    return ctx.make_image(files=files, cmdline='mem=48M script=scripts/tiny.mm')


def boot_as_is(ctx, image, boot, tag):
    """Boot image itself (no copy: the results file must land in it)."""
    return ctx.boot(None, image=image, boot=boot, timeout=240, log=tag + '.log')


def esp_files(ctx, image, tag):
    """Copy the whole ESP out of image; returns the directory."""
    out = ctx.path(tag + '.esp')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(['mcopy', '-s', '-n', '-i', image + '@@1M', '::*', out], check=True, capture_output=True)
    return out


def same_tree(a, b, skip=()):
    """Paths (relative) whose bytes differ or that exist on one side only."""
    diffs = []
    for root, dirs, files in os.walk(a):
        rel = os.path.relpath(root, a)
        dirs[:] = [d for d in dirs if os.path.normpath(os.path.join(rel, d)) not in skip]
        for f in files:
            p = os.path.normpath(os.path.join(rel, f))
            q = os.path.join(b, p)
            if not os.path.isfile(q) or not filecmp.cmp(os.path.join(a, p), q, shallow=False):
                diffs.append(p)
    return diffs


def file_records(path):
    with open(path, 'rb') as f:
        data = f.read()
    lines = [ln for ln in data.split(b'\n') if ln.strip()]
    return data, [json.loads(ln) for ln in lines]


def check_results_file(r, path, disk, kinds=('boot', 'disks', 'script', 'result', 'table', 'script_end', 'blk'),
                       results=2):
    """The file holds the console's records, in order, up to the last write."""
    expect_ok(r)
    expect_in_log(r, 'results: records also go to ')
    expect_in_log(r, ' on %s ' % disk)
    data, recs = file_records(path)
    expect(len(data) == 4 << 20, '%s: %d bytes, not the 4 MiB the loader made' % (path, len(data)))
    expect(recs and recs[-1]['type'] == 'results_file', 'the file does not end with its results_file trailer')
    trailer, body = recs[-1], recs[:-1]
    expect(all(x['type'] != 'results_file' for x in body), 'more than one trailer')
    expect(trailer['final'] is True, 'trailer not final: %r' % trailer)
    valid = data[:trailer['valid_bytes']]
    expect(valid.endswith(b'\n') and len([ln for ln in valid.split(b'\n') if ln.strip()]) == len(body),
           'valid_bytes %d does not end right after the %d records' % (trailer['valid_bytes'], len(body)))
    expect(data[len(valid):].lstrip(b'\n').startswith(b'{"type":"results_file"'),
           'the trailer does not follow the valid bytes')
    console = [x for x in r.records if x.get('type') != 'unparsable']
    expect(body == console[:len(body)], 'the file\'s records differ from the console\'s first %d' % len(body))
    later = {x['type'] for x in console[len(body):]}
    expect(later <= AFTER_LAST_WRITE, 'records missing from the file: %s' % sorted(later - AFTER_LAST_WRITE))
    have = [x['type'] for x in body]
    for t in kinds:
        expect(t in have, 'the file has no %s record' % t)
    res_console = [x for x in console if x['type'] == 'result']
    res_file = [x for x in body if x['type'] == 'result']
    expect(len(res_file) == results and [x['elapsed_ns'] for x in res_file] == [x['elapsed_ns'] for x in res_console],
           'result records differ between file and console')


def test_results_file_nvme_then_sata(ctx):
    image = script_image(ctx)
    before = esp_files(ctx, image, 'before')
    r = boot_as_is(ctx, image, 'nvme', 'nvme')
    expect_in_log(r, 'boot: results file \\results/0001.jsonl: 4096 KiB')
    first = esp_files(ctx, image, 'first')
    check_results_file(r, os.path.join(first, 'results', '0001.jsonl'), 'nvme0n1')
    expect(not os.path.exists(os.path.join(first, 'results', '0002.jsonl')), '0002 after one boot')

    r2 = boot_as_is(ctx, image, 'sata', 'sata')
    expect_in_log(r2, 'boot: results file \\results/0002.jsonl: 4096 KiB')
    second = esp_files(ctx, image, 'second')
    check_results_file(r2, os.path.join(second, 'results', '0002.jsonl'), 'sata0')
    expect(filecmp.cmp(os.path.join(first, 'results', '0001.jsonl'), os.path.join(second, 'results', '0001.jsonl'),
                       shallow=False), 'the second boot changed results/0001.jsonl')
    diffs = same_tree(before, second, skip=('results',)) + same_tree(second, before, skip=('results',))
    expect(not diffs, 'ESP files changed by two boots: %s' % sorted(set(diffs)))

    out = subprocess.run([os.path.join('tools', 'results'), os.path.join(second, 'results', '0002.jsonl')],
                         capture_output=True, text=True)
    expect(out.returncode == 0, 'tools/results failed: %s' % out.stderr.strip())
    for text in ('script scripts/tiny.mm (from the table record)', 'real time', 'pgmajfault',
                 'touch #1:', 'kernel reached halt'):
        expect(text in out.stdout, 'tools/results output lacks %r:\n%s' % (text, out.stdout))


def test_results_file_run_steps(ctx):
    # run= steps: each step's vmstat record and the programs' own records
    # (hello's) reach the file.
    image = ctx.make_image(files=['%s/workloads/hello:bin/hello' % ctx.build], cmdline='quiet run="hello a ; hello b"')
    r = boot_as_is(ctx, image, 'sata', 'sata')
    d = esp_files(ctx, image, 'after')
    check_results_file(r, os.path.join(d, 'results', '0001.jsonl'), 'sata0', kinds=('boot', 'workload', 'vmstat', 'blk'),
                       results=0)
    _, recs = file_records(os.path.join(d, 'results', '0001.jsonl'))
    expect(len([x for x in recs if x['type'] == 'workload' and x.get('name') == 'hello']) == 2,
           'the file lacks a hello record')
    # Written after each step, not only at halt: the boot's records, then
    # one write per step, all before the halt reports.
    expect(one_blk(r, 'sata0')['writes'] == 3, 'sata0 writes before halt: %d, not 3' % one_blk(r, 'sata0')['writes'])


def test_results_file_usb_not_reachable(ctx):
    # The stick on EHCI (USB 2), which the kernel does not drive: the
    # loader still makes the file, the kernel says once that it cannot
    # reach it and writes nothing.  (On xHCI: test_usb.py.)
    image = script_image(ctx)
    r = boot_as_is(ctx, image, 'usb-ehci', 'usb')
    expect_ok(r)
    expect(r.log.count('the results file is not reachable') == 1, 'expected one "not reachable" line')
    d = esp_files(ctx, image, 'after')
    with open(os.path.join(d, 'results', '0001.jsonl'), 'rb') as f:
        data = f.read()
    expect(data == b'\n' * (4 << 20), 'results/0001.jsonl was written although the disk is not reachable')
    expect(any(x['type'] == 'result' for x in r.records), 'the script did not run')


def test_results_file_after_panic(ctx):
    # A panic writes nothing (no polled disk path): the file keeps what the
    # last write put there, a valid JSONL file whose trailer is not final,
    # and the console says which records are missing from it.
    image = ctx.make_image(cmdline='quiet test=panic')
    r = boot_as_is(ctx, image, 'nvme', 'panic')
    expect(r.status == 'panic', 'expected a panic, got %s' % r.status)
    expect(r.log.count('results: panic: records since the last write are not in results/0001.jsonl') == 1,
           'no single line about the records lost from the file')
    d = esp_files(ctx, image, 'after')
    data, recs = file_records(os.path.join(d, 'results', '0001.jsonl'))
    expect(recs and recs[-1]['type'] == 'results_file' and recs[-1]['final'] is False,
           'trailer %r' % (recs[-1] if recs else None))
    body = recs[:-1]
    console = [x for x in r.records if x.get('type') != 'unparsable']
    expect(body and body == console[:len(body)], 'the file\'s records are not the console\'s first ones')
    expect('disks' in [x['type'] for x in body] and 'panic' not in [x['type'] for x in body],
           'file records %r' % [x['type'] for x in body])
    out = subprocess.run([os.path.join('tools', 'results'), os.path.join(d, 'results', '0001.jsonl')],
                         capture_output=True, text=True)
    expect(out.returncode == 0 and 'no halt recorded' in out.stdout, 'tools/results: %s%s' % (out.stdout, out.stderr))


def fill(spec, blob, prefix):
    """Copy blob as PREFIXnnn.bin until the ESP is full; the names copied."""
    names = []
    for i in range(1000):
        name = '::/%s%03d.bin' % (prefix, i)
        if subprocess.run(['mcopy', '-i', spec, blob, name], capture_output=True).returncode:
            subprocess.run(['mdel', '-i', spec, name], capture_output=True)     # a partial copy
            break
        names.append(name)
    return names


def fragment_esp(image):
    """Fill the ESP: a 4 KiB file first, then 1 MiB files, then smaller ones
    until no space is left; delete the first and the odd 1 MiB files.
    The loader's 4 MiB file must go into the holes, in pieces, the first
    a few clusters (the firmware's search wraps round to the start)."""
    spec = image + '@@1M'
    blobs = {}
    try:
        for name, size in (('small', 4096), ('big', 1 << 20), ('mid', 64 << 10)):
            blobs[name] = image + '.' + name
            with open(blobs[name], 'wb') as f:
                f.write(b'\xa5' * size)
        subprocess.run(['mcopy', '-i', spec, blobs['small'], '::/small.bin'], check=True, capture_output=True)
        big = fill(spec, blobs['big'], 'big')
        fill(spec, blobs['mid'], 'mid')
        fill(spec, blobs['small'], 'tail')
    finally:
        for b in blobs.values():
            os.unlink(b)
    subprocess.run(['mdel', '-i', spec, '::/small.bin'] + big[1::2], check=True, capture_output=True)
    return len(big)


def cluster_runs(image, path):
    """The file's cluster runs as mshowfat prints them: [(first, last)]."""
    out = subprocess.run(['mshowfat', '-i', image + '@@1M', path], check=True, capture_output=True,
                         text=True).stdout
    return [(int(a), int(b)) for a, b in re.findall(r'<(\d+)-(\d+)>', out)]


def test_results_file_fragmented_esp(ctx):
    # The file lands in several runs of blocks; the kernel maps its records
    # across them (and only them: the filler files in between stay intact).
    image = script_image(ctx)
    expect(fragment_esp(image) >= 10, 'could not fill the ESP with filler files')
    before = esp_files(ctx, image, 'before')
    r = boot_as_is(ctx, image, 'nvme', 'nvme')
    m = re.search(r'boot: results file \\results/0001\.jsonl: 4096 KiB in (\d+) piece', r.log)
    expect(m and int(m.group(1)) >= 3, 'the results file is not in pieces: %s' % (m.group(0) if m else 'no line'))
    after = esp_files(ctx, image, 'after')
    path = os.path.join(after, 'results', '0001.jsonl')
    check_results_file(r, path, 'nvme0n1')
    runs = cluster_runs(image, '::/results/0001.jsonl')
    with open(path, 'rb') as f:
        valid = json.loads([ln for ln in f.read().split(b'\n') if ln.strip()][-1])['valid_bytes']
    info = subprocess.run(['minfo', '-i', image + '@@1M'], check=True, capture_output=True, text=True).stdout
    cluster = 512 * int(re.search(r'cluster size: (\d+) sectors', info).group(1))
    expect(len(runs) >= 3 and (runs[0][1] - runs[0][0] + 1) * cluster < valid,
           'the records do not span the first runs %r (%d bytes)' % (runs[:3], valid))
    diffs = same_tree(before, after, skip=('results',)) + same_tree(after, before, skip=('results',))
    expect(not diffs, 'ESP files changed: %s' % sorted(set(diffs)))


def test_results_file_refused_by_loader(ctx):
    # A plain file named results where the directory should be: the loader
    # makes no results file and says why in one line, the kernel repeats it
    # and runs as before.
    blob = ctx.path('blob')
    with open(blob, 'w') as f:
        f.write('not a directory\n')
    image = ctx.make_image(files=[blob + ':results'], cmdline='quiet')
    r = boot_as_is(ctx, image, 'nvme', 'nvme')
    expect_ok(r)
    expect(r.log.count('boot: no results file: \\results on the ESP is not a directory') == 1, 'loader line missing')
    expect_in_log(r, 'results: no results file: \\results on the ESP is not a directory')
    expect(one_blk(r, 'nvme0n1')['writes'] == 0, 'the boot disk was written without a results file')


def test_results_file_esp_full(ctx):
    # No room on the ESP: the loader's partial file is deleted again, it
    # says why, and the kernel runs without a results file.
    image = ctx.make_image(cmdline='quiet')
    spec = image + '@@1M'
    # The folder first: filling leaves less than a cluster free, and then
    # whether \results itself could be made would depend on the image's size.
    subprocess.run(['mmd', '-i', spec, '::/results'], check=True, capture_output=True)
    blob = ctx.path('blob')
    with open(blob, 'wb') as f:
        f.write(b'\xa5' * (1 << 20))
    expect(len(fill(spec, blob, 'big')) >= 10, 'could not fill the ESP')
    with open(blob, 'wb') as f:
        f.write(b'\xa5' * 2048)
    fill(spec, blob, 'tail')
    before = esp_files(ctx, image, 'before')
    r = boot_as_is(ctx, image, 'nvme', 'nvme')
    expect_ok(r)
    expect(r.log.count('boot: no results file: cannot write 4096 KiB to \\results\\0001.jsonl') == 1,
           'no loader line about the full ESP')
    expect_in_log(r, 'results: no results file: cannot write 4096 KiB')
    after = esp_files(ctx, image, 'after')
    expect(not os.path.exists(os.path.join(after, 'results', '0001.jsonl')), 'the partial file was left behind')
    diffs = same_tree(before, after, skip=('results',)) + same_tree(after, before, skip=('results',))
    expect(not diffs, 'ESP files changed: %s' % sorted(set(diffs)))
    expect(one_blk(r, 'nvme0n1')['writes'] == 0, 'the boot disk was written without a results file')


def test_results_file_image_on_two_disks(ctx):
    # The same image on two disks: both carry the boot partition's GUID, so
    # the kernel cannot tell which one the loader wrote to and writes
    # neither.
    image = ctx.make_image(cmdline='quiet')
    twin = ctx.path('twin.img')
    subprocess.run(['cp', '--sparse=always', image, twin], check=True)
    r = ctx.boot(None, image=image, boot='nvme', timeout=240, log='nvme.log', disks=[{'file': twin, 'bus': 'nvme'}])
    expect_ok(r)
    expect(r.log.count('two disks hold a partition with the boot partition\'s GUID') == 1,
           'no single line about the ambiguous boot partition')
    d = esp_files(ctx, image, 'after')
    with open(os.path.join(d, 'results', '0001.jsonl'), 'rb') as f:
        expect(f.read() == b'\n' * (4 << 20), 'the results file was written')
    for name in ('nvme0n1', 'nvme1n1'):
        expect(one_blk(r, name)['writes'] == 0, '%s was written' % name)


def one_blk(r, name):
    recs = [x for x in r.find('blk') if x.get('name') == name]
    expect(len(recs) == 1, 'expected one blk record for %s, found %d' % (name, len(recs)))
    return recs[0]
