# mixed.mm: Linux 4.14's test for VMA-based swap readahead (commit
# "mm, swap: VMA based swap readahead"): a sequential stream while another
# task swaps in at random.  Slot-based readahead reads the random task's
# pages along with the stream's, as they share the disk; the readahead
# hit rate of the sequential task (task_exit records: ra_hits/ra_issued)
# fell to 52.7% there, and was 99.98% with VMA-based readahead.  Columns:
# Linux's default page-cluster 3, VMA-based, this kernel's own policy.
#   tools/matrix tests/workloads/scripts/mixed.mm --profile ssd
# The columns interleave (each round runs every column once) after a
# warm-up run of another workload, so what drifts over a boot weighs
# on all of them alike (README, "Column order").
mem 48M
swap nvme1n1

column "warm-up"
run touch 72 30000 random anon 2

repeat 3
    column "RA=3"
    set ra fixed:3
    parallel
        run touch 40 50000 seq anon
        run touch 40 40000 random anon
    end
    column "VMA"
    set ra vma
    set page_cluster 3
    parallel
        run touch 40 50000 seq anon
        run touch 40 40000 random anon
    end
    column "own"
    set ra own
    parallel
        run touch 40 50000 seq anon
        run touch 40 40000 random anon
    end
end
