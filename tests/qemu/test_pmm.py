"""The page allocator with its per-CPU free-page lists: test=pmmbench
allocates and frees 64 x 1024 single pages in bursts and 65536 hot pairs,
through the lists' refills and spills, and every page must be free again
afterwards, counted exactly (the lists' pages count as free).  Its ns
figures are for reading under --icount (kernel/mem/pmm.c), not judged."""
import pytest

from rig import expect, expect_ok, selftest


@pytest.mark.quick
def test_pmm_lists_give_back_every_page(ctx):
    data, r = selftest(ctx, 'pmmbench', 'mem=48M')
    expect(data['free_before'] == data['free_after'], 'free pages %r' % data)
    locks = {c['name']: c for c in r.find('locks')[0]['since_reset']['classes']}
    # 131072 allocations and as many frees, the buddy entered once per batch.
    expect(locks['pmm']['acquired'] < 131072 // 4, 'pmm lock taken %d times' % locks['pmm']['acquired'])


@pytest.mark.quick
def test_pgtable_helpers_on_a_fresh_root(ctx):
    # pt_leaf (one walk for a look and a change: the fault path's install
    # and reclaim's reverse map) and the helpers built on it, on a user
    # root of their own (tests/kernel/pmm_selftest.c says what each check is).
    data, r = selftest(ctx, 'pgtable', 'mem=48M')
    expect(data['tables'] == data['freed'] == 4, 'tables made and freed %r' % data)
    expect(data['free_before'] == data['free_after'], 'free pages %r' % data)


@pytest.mark.quick
def test_code_frames_go_back_to_code(ctx):
    # A frame that held user code is freed onto the code frames (counted
    # as free), reused for code first and for anything else last
    # (kernel/mem/pmm.c says why: QEMU's TCG and recycled code frames).
    data, r = selftest(ctx, 'pmmcode', 'mem=48M')
    expect(data['free_before'] == data['free_after'] and data['code_before'] == data['code_after'], 'counts %r' % data)
    # A program's text frames join the list when it exits, and the next
    # exec takes them back: three runs leave as many as one.
    code = []
    for progs in ('hello', 'hello ; hello ; hello'):
        r = ctx.boot('quiet mem=48M run="%s"' % progs)
        expect_ok(r)
        ends = [x for x in r.find('mem_balance') if x['phase'] == 'end']
        expect(len(ends) == 1, 'mem_balance end records %r' % ends)
        code.append(ends[0]['code_frames'])
    expect(code[0] > 0 and code[0] == code[1], 'code frames after one run and after three %r' % code)
