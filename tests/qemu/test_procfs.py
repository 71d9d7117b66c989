"""/proc and the calls real tools make: Debian's busybox-static (the host's
/bin/busybox, installed by tools/deps) runs free, cat /proc/..., date, id,
readlink on our kernel, and its output is held against the kernel's own
records; a workload samples /proc/vmstat itself while another swaps."""
import re

import pytest

from rig import expect, expect_ok, boot_record, swap_image, vm_final, expect_clean_exits, scratch_disk

BUSYBOX = '/bin/busybox'

# The calls busybox makes that used to log -ENOSYS (issue 13).
ONCE_ENOSYS = ['readlink', 'prctl', 'getuid', 'getgid', 'setuid', 'setgid', 'geteuid', 'getegid',
               'getgroups', 'newfstatat', 'time', 'openat', 'sysinfo', 'sendfile', 'access']


def busybox_image(ctx):
    with open(BUSYBOX, 'rb') as f:
        expect(b'/lib64/ld-linux' not in f.read(4096), '%s is dynamically linked: install busybox-static (tools/deps)'
               % BUSYBOX)
    return ctx.make_image(files=[BUSYBOX + ':bin/busybox', ctx.build + '/workloads/hello:bin/hello'])


def outputs(r):
    """Console lines of each task, by its command line, in start order."""
    out, by_pid, order = {}, {}, []
    for line in r.log.splitlines():
        m = re.match(r'task: started \S+ \(pid (\d+)\): (.*)$', line)
        if m:
            by_pid[m.group(1)] = m.group(2)
            out[m.group(2)] = []
            order.append(m.group(2))
            continue
        m = re.match(r'task: \S+ \(pid (\d+)\) (exited|killed)', line)
        if m:
            by_pid.pop(m.group(1), None)
            continue
        if line.startswith('task: ') or line.startswith('{') or len(by_pid) != 1:
            continue
        out[next(iter(by_pid.values()))].append(line)
    return out


def enosys_lines(r):
    return [l for l in r.log.splitlines() if '-ENOSYS' in l]


def parse_meminfo(lines):
    m = {}
    for l in lines:
        x = re.match(r'^(\S+):\s+(\d+) kB$', l)
        expect(x, 'meminfo line not Linux-shaped: %r' % l)
        m[x.group(1)] = int(x.group(2))
    return m


def swap_areas(r):
    s = r.find('swap')
    expect(s, 'no swap record')
    return s[-1]['swap_areas']


@pytest.mark.quick
def test_procfs_busybox_tools(ctx):
    disks = [{'file': swap_image(ctx, mib=64), 'bus': 'nvme'}]
    cmds = ['busybox free', 'busybox cat /proc/meminfo', 'busybox cat /proc/vmstat', 'busybox cat /proc/swaps',
            'busybox date', 'busybox id', 'busybox readlink /proc/self/exe',
            'busybox cat /proc/self/status /proc/self/stat', 'busybox uptime', 'busybox ls /proc/sys/vm', 'busybox sync',
            'busybox cat /proc/sys/vm/overcommit_memory /proc/sys/vm/swappiness /proc/sys/vm/page-cluster']
    # /proc/sys/vm reads what the knobs hold now: swappiness set just before.
    steps = cmds[:-1] + ['@set swappiness 100', cmds[-1]]
    r = ctx.boot('quiet run="%s"' % ' ; '.join(steps), image=busybox_image(ctx), disks=disks, timeout=300)
    expect_ok(r)
    expect_clean_exits(r, len(cmds))
    out = outputs(r)

    mem = parse_meminfo(out['busybox cat /proc/meminfo'])
    for name in ('MemTotal', 'MemFree', 'MemAvailable', 'Buffers', 'Cached', 'SwapCached', 'Active', 'Inactive',
                 'Active(anon)', 'Inactive(anon)', 'Active(file)', 'Inactive(file)', 'SwapTotal', 'SwapFree', 'Shmem',
                 'CommitLimit', 'Committed_AS'):
        expect(name in mem, 'meminfo lacks %s: %r' % (name, mem))
    expect(mem['MemTotal'] * 1024 == boot_record(r)['managed_bytes'],
           'MemTotal %d kB, the boot record manages %d bytes' % (mem['MemTotal'], boot_record(r)['managed_bytes']))
    expect(mem['MemAvailable'] <= mem['MemFree'] < mem['MemTotal'], 'meminfo: %r' % mem)
    expect(mem['Active'] + mem['Inactive'] == mem['Active(anon)'] + mem['Inactive(anon)'], 'meminfo: %r' % mem)
    areas = swap_areas(r)
    expect(len(areas) == 1, 'swap areas: %r' % areas)
    usable_kb = (areas[0]['free'] + areas[0]['used']) * 4
    expect(mem['SwapTotal'] == usable_kb and 0 < mem['SwapFree'] <= mem['SwapTotal'],
           'SwapTotal %d kB SwapFree %d kB, the swap record: %r' % (mem['SwapTotal'], mem['SwapFree'], areas[0]))
    # Linux's commit limit at overcommit_ratio 50: half of RAM plus swap
    # (in pages, rounded down).  Committed: at least cat's writable image.
    expect(mem['CommitLimit'] == mem['MemTotal'] // 4 * 50 // 100 * 4 + mem['SwapTotal'] and
           0 < mem['Committed_AS'] < mem['CommitLimit'], 'CommitLimit %d kB, Committed_AS %d kB: %r' %
           (mem['CommitLimit'], mem['Committed_AS'], mem))

    free = {l.split()[0]: l.split()[1:] for l in out['busybox free'][1:]}
    expect('Mem:' in free and int(free['Mem:'][0]) == mem['MemTotal'], 'free: %r' % out['busybox free'])
    expect('Swap:' in free and int(free['Swap:'][0]) == mem['SwapTotal'], 'free: %r' % out['busybox free'])

    vm = {}
    for l in out['busybox cat /proc/vmstat']:
        x = re.match(r'^([a-z_]+) (\d+)$', l)
        expect(x, 'vmstat line not Linux-shaped: %r' % l)
        vm[x.group(1)] = int(x.group(2))
    final = vm_final(r)
    for name in ('nr_free_pages', 'nr_inactive_anon', 'nr_active_anon', 'nr_shmem', 'nr_swapcached', 'pgfault',
                 'pgmajfault', 'pgpgin', 'pgpgout', 'pswpin', 'pswpout', 'oom_kill'):
        expect(name in vm, '/proc/vmstat lacks %s' % name)
    for name, v in vm.items():
        if name in final and not name.startswith('nr_'):
            expect(0 <= v <= final[name], '%s: /proc/vmstat says %d, the final record %d' % (name, v, final[name]))
    expect(vm['pgfault'] > 0, 'no faults counted by the time cat ran: %r' % vm)

    swaps = out['busybox cat /proc/swaps']
    expect(swaps[0] == 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority', 'swaps header %r' % swaps[0])
    f = swaps[1].split()
    expect(len(swaps) == 2 and f[0] == '/dev/' + areas[0]['device'] and f[1] == 'partition'
           and int(f[2]) == usable_kb and int(f[4]) == areas[0]['prio'], '/proc/swaps %r vs %r' % (swaps, areas))

    date = ' '.join(out['busybox date'])
    year = re.search(r' (\d{4})$', date)
    expect(year and int(year.group(1)) >= 2024, 'date from the RTC: %r' % date)
    expect(out['busybox id'] == ['uid=0 gid=0'], 'id: %r' % out['busybox id'])
    expect(out['busybox readlink /proc/self/exe'] == ['/bin/busybox'], 'readlink: %r' % out)
    st = out['busybox cat /proc/self/status /proc/self/stat']
    pid = [e['pid'] for e in r.find('task_exit') if e['cmdline'].startswith('busybox cat /proc/self')][0]
    expect('Name:\tbusybox' in st and 'Pid:\t%d' % pid in st, 'status: %r' % st)
    expect(st[-1].startswith('%d (busybox) R ' % pid) and len(st[-1].split()) == 52, 'stat: %r' % st[-1])
    expect(re.search(r'load average: 0\.00, 0\.00, 0\.00', ' '.join(out['busybox uptime'])), 'uptime %r' % out)
    names = ' '.join(out['busybox ls /proc/sys/vm']).split()
    expect(sorted(names) == sorted(['swappiness', 'page-cluster', 'dirty_ratio', 'dirty_background_ratio',
                                    'dirty_expire_centisecs', 'overcommit_memory', 'overcommit_ratio',
                                    'overcommit_kbytes']), 'ls /proc/sys/vm: %r' % names)
    sysvm = out['busybox cat /proc/sys/vm/overcommit_memory /proc/sys/vm/swappiness /proc/sys/vm/page-cluster']
    expect(sysvm == ['0', '100', '3'], '/proc/sys/vm: %r' % sysvm)

    for line in enosys_lines(r):
        for name in ONCE_ENOSYS:
            expect(' syscall %s (' % name not in line, 'still logged: %r' % line)
        expect('unknown syscall' not in line, 'a call busybox makes is still unknown: %r' % line)


@pytest.mark.quick
def test_busybox_dd_reads_and_writes_a_disk(ctx):
    # The tool anyone reaches for first on a disk.  busybox dd moves its
    # files onto fds 0 and 1 with dup2 and reads /dev/zero or writes
    # /dev/null: before, dup2 was -ENOSYS ("can't duplicate file
    # descriptor") and neither device existed.  A disk whose first MiB
    # holds 0xab: dd reads 8 MiB of it into /dev/null, writes 256 KiB of
    # zeros from /dev/zero at 64 KiB, and only those bytes change; od
    # reads the 16 bytes before them back.
    data = scratch_disk(ctx, 'data.img', 16 << 20)
    with open(data, 'r+b') as f:
        f.write(b'\xab' * (1 << 20))
    cmds = ['busybox dd if=/dev/nvme1n1 of=/dev/null bs=1M count=8',
            'busybox dd if=/dev/zero of=/dev/nvme1n1 bs=64k count=4 seek=1',
            'busybox od -A d -t x1 -N 16 -j 65520 /dev/nvme1n1', 'busybox stat -c %F:%t:%T /dev/null /dev/zero',
            'busybox ls /dev']
    r = ctx.boot('quiet mem=64M data=nvme1n1 run="%s"' % ' ; '.join(cmds), image=busybox_image(ctx),
                 disks=[{'file': data, 'bus': 'nvme'}], timeout=300)
    expect_ok(r)
    expect_clean_exits(r, len(cmds))
    out = outputs(r)
    expect([l.split('] ', 1)[-1] for l in out[cmds[0]]] == ['8+0 records in', '8+0 records out'],
           'dd of=/dev/null: %r' % out[cmds[0]])
    expect([l.split('] ', 1)[-1] for l in out[cmds[1]]] == ['4+0 records in', '4+0 records out'],
           'dd if=/dev/zero: %r' % out[cmds[1]])
    expect(out[cmds[2]] == ['0065520 ' + ' '.join(['ab'] * 16), '0065536'], 'od: %r' % out[cmds[2]])
    expect(out[cmds[3]] == ['character special file:1:3', 'character special file:1:5'], 'stat: %r' % out[cmds[3]])
    # ls lists them beside the disks (they were missing from /dev).
    listed = ' '.join(out[cmds[4]]).split()
    expect({'null', 'zero', 'nvme1n1'} <= set(listed), 'ls /dev: %r' % out[cmds[4]])
    with open(data, 'rb') as f:
        d = f.read(1 << 20)
    expect(d[65536:327680] == bytes(262144), 'the 256 KiB dd wrote are not zeros')
    expect(d[:65536] == b'\xab' * 65536 and d[327680:] == b'\xab' * (len(d) - 327680),
           'dd wrote outside its 256 KiB')
    expect(not [l for l in r.log.splitlines() if 'unknown syscall' in l], 'a call dd makes is unknown')


def test_procfs_writes_refused(ctx):
    """Nothing under / can be written or created; unknown paths are ENOENT."""
    cmds = ['busybox cat /proc/nonexistent', 'busybox touch /proc/meminfo', 'busybox touch /newfile',
            'busybox cat /proc/meminfo']
    r = ctx.boot('quiet run="%s"' % ' ; '.join(cmds), image=busybox_image(ctx), timeout=300)
    expect_ok(r)
    exits = {e['cmdline']: e['exit_code'] for e in r.find('task_exit')}
    expect(exits == {cmds[0]: 1, cmds[1]: 1, cmds[2]: 1, cmds[3]: 0}, 'exit codes: %r' % exits)
    log = r.log
    expect("can't open '/proc/nonexistent': No such file or directory" in log, 'cat of a missing file')
    expect("/proc/meminfo: Permission denied" in log, 'touch of /proc/meminfo was not refused with EACCES')
    expect("/newfile: Read-only file system" in log, 'creating /newfile was not refused with EROFS')
    expect(len(parse_meminfo(outputs(r)[cmds[3]])) >= 15, 'meminfo after the refused writes')


def test_procfs_vmstat_sampled_by_a_workload(ctx):
    """`vmstat 1` the seed-002 way, from a workload reading /proc/vmstat
    while hogmem swaps: counters only grow, the sampled swap-outs grow
    during the run and never exceed the kernel's final record."""
    disks = [{'file': swap_image(ctx), 'bus': 'nvme'}]
    r = ctx.boot('quiet mem=48M run="vmstat 500 20 & hogmem 80 2"', disks=disks, timeout=900)
    expect_ok(r)
    expect_clean_exits(r, 2)
    v = [w for w in r.find('workload') if w['name'] == 'vmstat']
    expect(len(v) == 1 and v[0]['samples'] == 20, 'vmstat record: %r' % v)
    v, final = v[0], vm_final(r)
    expect(v['last_pswpout'] > v['first_pswpout'], 'no swap-out seen while sampling: %r' % v)
    for name in ('pswpin', 'pswpout', 'pgfault', 'pgmajfault', 'pgpgout'):
        expect(v['first_' + name] <= v['last_' + name] <= final[name],
               '%s: sampled %d..%d, final record %d' % (name, v['first_' + name], v['last_' + name], final[name]))
    lines = [l for l in r.log.splitlines() if re.match(r'^\[vmstat:\d+\]\s+\d+(\s+\d+){7}$', l)]
    expect(len(lines) == 19, 'expected 19 sample lines on stderr, got %d' % len(lines))
