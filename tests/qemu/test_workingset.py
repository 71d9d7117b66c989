"""Workingset detection (kernel/vm/workingset.c): refaults are recognised
from the shadows evicted pages leave at their swap slots (anon, shmem) or
in the page cache's index (file pages), pages that refault within the
working set are activated, workingset=off leaves no shadows and activates
nothing, and every shadow is gone once the slots are freed or the page
cache dropped.

Counters are exact and judged per step (the vmstat record of each run=
step).  Readahead is off (ra=off): every major fault is then one read of
one slot, so a refault is a major fault."""
import pytest

from rig import (expect, expect_ok, expect_in_log, swap_image, vm_final, expect_clean_exits, script_text_image,
                 boot_record, check_script_error, scratch_disk)


def boot_swapping(ctx, progs, cmdline='', swap_mib=256):
    """q35 -m 128 with mem=60M and no readahead, as issue 12 measured;
    age_ahead=off, as the shadows' figures were measured: with it on,
    fewer pages are activated (13087 against 21186 on fill+random anon 1),
    the active lists are shorter, and more shadows go stale before their
    refault (2916 refaults recognised of 5733 major faults, against 5190
    of 5798)."""
    r = ctx.boot('quiet mem=60M ra=off page_cluster=0 workingset=on age_ahead=off %s run="%s"'
                 % (cmdline, ' ; '.join(progs)),
                 disks=[{'file': swap_image(ctx, mib=swap_mib), 'bus': 'nvme'}], mem='128M', timeout=1500)
    expect_ok(r)
    return r


def steps(r):
    """The vmstat record of each workload step, in order."""
    return [v for v in r.find('vmstat') if v.get('label', '').startswith('touch')]


def judge_on(v, kind):
    refaults, act = v['workingset_refault_' + kind], v['workingset_activate_' + kind]
    restore = v['workingset_restore_' + kind]
    # A 64 MiB region in about 57 MiB of free memory: a page evicted
    # comes back within a few thousand evictions, so most major faults
    # are refaults with a shadow (a shadow goes once its distance exceeds
    # the active lists, so not all); each refault is one major fault.
    # The program's own anonymous pages (stack, data) may be evicted and
    # refault too: the mapping's own kind has nearly all of them.
    both = v['workingset_refault_anon'] + v['workingset_refault_shmem']
    expect(refaults * 2 > v['pgmajfault'] and both <= v['pgmajfault'] and refaults * 10 >= both * 9,
           '%s: %d refaults (%d of both kinds) for %d major faults' % (kind, refaults, both, v['pgmajfault']))
    # Its working set nearly fits: most refault distances are shorter
    # than the active lists.
    expect(act * 2 > refaults, '%s: %d of %d refaults activated' % (kind, act, refaults))
    expect(restore <= act, '%s: %d restores, %d activations' % (kind, restore, act))


@pytest.mark.slow
def test_workingset_refaults_activate(ctx):
    progs = ['touch 64 40000 fill+random anon 1', 'touch 64 40000 fill+random shmem 2',
             '@set workingset off', 'touch 64 40000 fill+random anon 1']
    r = boot_swapping(ctx, progs)
    expect_clean_exits(r, 3)
    anon, shmem, off = steps(r)
    judge_on(anon, 'anon')
    judge_on(shmem, 'shmem')
    expect(anon['workingset_refault_shmem'] == 0 and anon['workingset_activate_shmem'] == 0,
           'anon run counted shmem refaults: %r' % anon)
    # Off: no shadows, so no refault recognised and none activated, while
    # the same workload swaps as much.
    expect(off['pgmajfault'] > 1000, 'off: %d major faults' % off['pgmajfault'])
    expect(off['workingset_refault_anon'] == 0 and off['workingset_activate_anon'] == 0 and
           off['workingset_restore_anon'] == 0 and off['nr_workingset_shadows'] == 0, 'off: %r' % off)
    # Every slot is free once the tasks are gone, and so no shadow is left.
    expect(vm_final(r)['nr_workingset_shadows'] == 0, 'shadows left: %r' % vm_final(r)['nr_workingset_shadows'])


@pytest.mark.slow
def test_workingset_stale_shadows_dropped(ctx):
    # 160 MiB through 60M: about 27000 evictions in the fill alone; the
    # shadows whose distance outgrew the active lists are dropped, so
    # faults on pages evicted long before are not refaults, while those
    # evicted recently are, and some of them activated.
    r = boot_swapping(ctx, ['touch 160 20000 fill+random anon 3'], swap_mib=512)
    expect_clean_exits(r, 1)
    v = steps(r)[0]
    expect(0 < v['workingset_refault_anon'] < v['pgmajfault'] and v['workingset_activate_anon'] > 0,
           '%d refaults, %d activated, for %d major faults' % (v['workingset_refault_anon'],
                                                               v['workingset_activate_anon'], v['pgmajfault']))
    expect(vm_final(r)['nr_workingset_shadows'] == 0, 'shadows left: %r' % vm_final(r)['nr_workingset_shadows'])


@pytest.mark.quick
def test_workingset_knob(ctx):
    # A bad value on the command line is refused by name and the default
    # (off) stays; a script turns it on between runs and the result
    # records say so.
    text = 'run hello\nset workingset on\nrun hello\n'
    r = ctx.boot(None, image=script_text_image(ctx, text, cmdline='quiet workingset=maybe'))
    expect_ok(r)
    expect_in_log(r, "cmdline: workingset=maybe: 'maybe' is not on or off; default kept")
    res = r.find('result')
    expect(len(res) == 2, 'results %r' % res)
    expect(res[0]['knobs'].get('workingset') == 'off' and res[1]['knobs'].get('workingset') == 'on',
           'knobs %r, %r' % (res[0]['knobs'], res[1]['knobs']))


@pytest.mark.quick
def test_workingset_script_value_checked(ctx):
    check_script_error(ctx, 'run hello\nset workingset sometimes\n',
                       "scripts/bad.mm:2:16: workingset: 'sometimes' is not on or off")


# ------------------------------------------------------------ file pages

def filews_steps(r):
    return [v for v in r.find('vmstat') if v.get('label', '').startswith('filews')]


def boot_filews(ctx, args, cmdline='', **kw):
    """filews (tests/workloads/filews.c) on a zeroed data disk, with
    workingset on, then off (the same boot), no swap: q35 -m 128 with
    mem=60M, about 54 MiB of file cache.  The page cache is dropped (and
    its shadows with it) before each step."""
    data = scratch_disk(ctx, 'data.img', 512 << 20)
    run = 'filews /dev/nvme1n1 %s ; @set workingset off ; filews /dev/nvme1n1 %s' % (args, args)
    r = ctx.boot('quiet mem=60M workingset=on %s run="%s"' % (cmdline, run),
                 disks=[{'file': data, 'bus': 'nvme'}], mem='128M', timeout=2400, **kw)
    expect_ok(r)
    expect_clean_exits(r, 2)
    # Dropping the page cache drops its shadows too (Linux's drop_caches
    # 3 runs the shadow shrinker): none is left, and no frame either
    # (the balance check).
    expect(vm_final(r)['nr_workingset_shadows'] == 0, 'shadows left: %r' % vm_final(r)['nr_workingset_shadows'])
    return filews_steps(r)


def judge_file_on_off(on, off, ws_pages):
    # On: every page of the working set refaults once (read(2) and the
    # read-ahead around it alike) at a distance shorter than the old set
    # on the active list, so it is activated; the old set, never read
    # again, is aged out instead.
    expect(ws_pages <= on['workingset_refault_file'] and
           on['workingset_activate_file'] * 10 >= on['workingset_refault_file'] * 9,
           'on: %d file refaults, %d activated, working set %d pages' %
           (on['workingset_refault_file'], on['workingset_activate_file'], ws_pages))
    expect(on['workingset_restore_file'] <= on['workingset_activate_file'], 'on: %r' % on)
    expect(on['workingset_refault_anon'] == 0 and on['workingset_refault_shmem'] == 0, 'on: anon refaults %r' % on)
    # Stale shadows are trimmed: the stream evicted far more pages than
    # shadows are kept, and never more than RAM pages of them.
    expect(0 < on['nr_workingset_shadows'] < on['pgsteal_file'] and on['nr_workingset_shadows'] < 60 * 256,
           'on: %d shadows after %d evictions' % (on['nr_workingset_shadows'], on['pgsteal_file']))
    # Off: the kernel as before; nothing recognised, nothing kept.
    expect(off['workingset_refault_file'] == 0 and off['workingset_activate_file'] == 0 and
           off['nr_workingset_shadows'] == 0, 'off: %r' % off)
    # The working set, once active, is read from memory: the disk sees
    # the stream and little else.
    expect(on['pgpgin'] * 10 < off['pgpgin'] * 9, 'pgpgin on %d KiB, off %d KiB' % (on['pgpgin'], off['pgpgin']))


@pytest.mark.slow
def test_workingset_file_refaults_activate(ctx):
    # filews 26 20 400 5: an old set of 26 MiB read twice (active), then
    # a 20 MiB working set read 5 times, 20 MiB of stream beside each
    # pass: 40 MiB per pass through an inactive list of about 27 MiB, so
    # without refault detection no working-set page is read twice while
    # resident (off: about 52 + 5 x 40 MiB from disk).
    on, off = boot_filews(ctx, '26 20 400 5')
    judge_file_on_off(on, off, 20 * 256)


@pytest.mark.long
def test_workingset_file_icount(ctx):
    # The measured case (kernel/vm/README.md), 8 passes, guest time by
    # instruction count; prints what the README's table holds.
    on, off = boot_filews(ctx, '26 20 400 8', icount='exact')
    for k in ('pgpgin', 'workingset_refault_file', 'workingset_activate_file', 'pgsteal_file', 'pgdeactivate'):
        print('%s on %d off %d' % (k, on[k], off[k]))
    judge_file_on_off(on, off, 20 * 256)


def test_anon_used_once_knob(ctx):
    # anon_used_once=on (Linux 5.9+): an anonymous page's first reference
    # on the inactive list (the fault that mapped it) keeps it one more
    # trip; only a second activates it.  On a skewed set, where most pages
    # are touched once between scans and a few all the time, far fewer
    # pages are activated, and so deactivated again, than with the first
    # reference activating (off, the default).  A bad value is named and
    # the knob keeps its value.  age_ahead=off: this knob's effect alone,
    # as the README's figures were measured (with first looks ahead of
    # need, the fault's reference is gone before reclaim's look either way).
    hot = 'touch 72 100000 hot:2048:75 anon 1'
    r = ctx.boot('quiet mem=48M ra=off age_ahead=off run="%s ; @set anon_used_once maybe ; %s ; '
                 '@set anon_used_once on ; %s"'
                 % (hot, hot, hot), disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900)
    expect_ok(r)
    expect_clean_exits(r, 3)
    expect_in_log(r, "anon_used_once")
    expect(any('maybe' in e.get('message', '') and 'anon_used_once' in e.get('message', '')
               for e in r.find('script_error')), 'no error naming anon_used_once maybe: %r' % r.find('script_error'))
    off1, off2, on = steps(r)
    for v in (off1, off2, on):
        expect(v['pswpout'] > 1000, 'not enough reclaim: %r' % {k: v[k] for k in ('pswpout', 'pgactivate')})
    # Off twice (the bad value changed nothing), then on.
    expect(on['pgactivate'] * 2 < min(off1['pgactivate'], off2['pgactivate']),
           'pgactivate off %d, %d; on %d' % (off1['pgactivate'], off2['pgactivate'], on['pgactivate']))
    expect(on['pgdeactivate'] * 2 < min(off1['pgdeactivate'], off2['pgdeactivate']),
           'pgdeactivate off %d, %d; on %d' % (off1['pgdeactivate'], off2['pgdeactivate'], on['pgdeactivate']))


def test_age_ahead_keeps_a_hot_set_touched_first(ctx):
    # age_ahead (on by default): the first reclaim look at each page is
    # given while memory is still free, so the first reclaim does not
    # clear every page's fault reference at once and then evict in fault
    # order, which took out a hot set touched first (75% of the touches on
    # the first 2048 pages).  Two seeds in one boot per setting, ra=off so
    # every major fault is one page; seed 20261201 was not used in tuning.
    # Measured: off 1510 and 1423 major faults, on 966 and 941.  The same
    # on shmem (seed 1): a shmem fault marks its page PG_REFERENCED, and
    # the looks passed over every marked page: 25 found referenced, 1478
    # major faults against 1451 off; now about 10500 and 951 against 1496.
    # A bad value is named and the knob keeps its value.
    hot = ['touch 72 100000 hot:2048:75 anon %d' % s for s in (1, 20261201)] + \
          ['touch 72 100000 hot:2048:75 shmem 1']
    got = {}
    for setting in ('off', 'on'):
        r = ctx.boot('quiet mem=48M ra=off age_ahead=%s run="@set age_ahead maybe ; %s"' % (setting, ' ; '.join(hot)),
                     disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], timeout=900, log='log-' + setting)
        expect_ok(r)
        expect_clean_exits(r, 3)
        expect(any('maybe' in e.get('message', '') and 'age_ahead' in e.get('message', '')
                   for e in r.find('script_error')), 'no error naming age_ahead maybe: %r' % r.find('script_error'))
        got[setting] = steps(r)
    for i, what in enumerate(('anon seed 1', 'anon seed 20261201', 'shmem seed 1')):
        off, on = got['off'][i], got['on'][i]
        expect(off['pgage_ahead'] == 0 and on['pgage_ahead'] > 1000,
               '%s: pgage_ahead off %d, on %d' % (what, off['pgage_ahead'], on['pgage_ahead']))
        expect(on['pgmajfault'] * 100 <= off['pgmajfault'] * 85,
               '%s: %d major faults with age_ahead on, %d off' % (what, on['pgmajfault'], off['pgmajfault']))


def test_age_ahead_on_several_cpus(ctx):
    # The same hot set touched by four threads at once on four CPUs
    # (shared: each all over the area, its own seed).  Every allocating
    # task gives its share of the first looks; when one task looked at a
    # time and the others skipped, its TLB flush waiting for the other
    # CPUs let nearly every other allocation pass: 39 pages were found
    # referenced instead of about 10400, and the hot set took as many
    # major faults as with age_ahead off (1541 and 1653 against 1537 and
    # 1546; 1035 and 1057 now).  -icount: the vCPUs take turns, so the
    # counts do not hang on how the host schedules them.  Seed 777 was
    # not used while measuring.
    hot = ['touch 72 100000 hot:2048:75 anon %d threads=4 shared' % s for s in (1, 777)]
    got = {}
    for setting in ('off', 'on'):
        r = ctx.boot('quiet mem=48M ra=off age_ahead=%s run="%s"' % (setting, ' ; '.join(hot)),
                     disks=[{'file': swap_image(ctx), 'bus': 'nvme'}], smp=4, icount='exact', timeout=900,
                     log='log-' + setting)
        expect_ok(r)
        expect_clean_exits(r, 2)
        expect(boot_record(r).get('cpus_online') == 4, 'cpus online: %r' % boot_record(r).get('cpus_online'))
        got[setting] = steps(r)
    for i, seed in enumerate((1, 777)):
        off, on = got['off'][i], got['on'][i]
        expect(off['pgage_ahead'] == 0 and on['pgage_ahead'] > 5000,
               'seed %d: pgage_ahead off %d, on %d' % (seed, off['pgage_ahead'], on['pgage_ahead']))
        expect(on['pgmajfault'] * 100 <= off['pgmajfault'] * 85,
               'seed %d: %d major faults with age_ahead on, %d off' % (seed, on['pgmajfault'], off['pgmajfault']))
