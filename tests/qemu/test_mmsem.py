"""mm->lock as a reader/writer sleeping lock (issue 14): faults of one
address space take it shared and run in parallel; mmap, munmap, brk and
mprotect take it exclusive.  The lock's own behaviour (test=rwsem), then
threads of one process faulting the very same pages at once - first
touch, swap-in of the same swapped pages, shmem - with swapcrc=on."""
import pytest

import rig
from rig import expect, selftest, boot_record


@pytest.mark.quick
def test_rwsem_selftest(ctx):
    # Two CPUs, so the readers really are inside at once.
    data, r = selftest(ctx, 'rwsem', smp=2)
    expect(data['max_readers_inside'] == 3, 'readers %r' % data)
    expect(data['writer_excludes_reader'] and data['waiting_writer_blocks_readers'], 'exclusion %r' % data)
    expect(data['order'] == 'WR', 'the waiting writer went after the reader: %r' % data)
