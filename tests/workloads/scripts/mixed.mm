# mixed.mm: Linux 4.14's test for VMA-based swap readahead (commit
# "mm, swap: VMA based swap readahead"): a sequential stream while another
# task swaps in at random.  Slot-based readahead reads the random task's
# pages along with the stream's, as they share the disk; the readahead
# hit rate of the sequential task (task_exit records: ra_hits/ra_issued)
# fell to 52.7% there, and was 99.98% with VMA-based readahead.  Columns:
# Linux's default page-cluster 3, VMA-based, this kernel's own policy.
#   tools/matrix tests/workloads/scripts/mixed.mm --profile ssd
mem 48M
swap nvme1n1

column "RA=3"
set ra fixed:3
repeat 3
    parallel
        run touch 40 50000 seq anon
        run touch 40 40000 random anon
    end
end

column "VMA"
set ra vma
set page_cluster 3
repeat 3
    parallel
        run touch 40 50000 seq anon
        run touch 40 40000 random anon
    end
end

column "own"
set ra own
repeat 3
    parallel
        run touch 40 50000 seq anon
        run touch 40 40000 random anon
    end
end
