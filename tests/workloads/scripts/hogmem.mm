# hogmem.mm: Zlatko Calusic's benchmark (seed 004 in docs/seeds.md) - "hogmem 100 3" and
# "2 x hogmem 50 3" on a 64 MB machine, before and after he raised the
# swap cluster from 128 KiB to 256 pages.  Here: 72 MiB (1.5x RAM) swept
# three times, alone and as two 36 MiB hogs at once, with clusters of 32
# slots (128 KiB, the old value), 256 (this kernel's default) and 512.
# The "swapcache hit %" row is his swap cache hit rate.  Readahead stays
# at Linux's default page-cluster 3, as in his kernel.
#   tools/matrix tests/workloads/scripts/hogmem.mm --profile hdd
mem 48M
swap nvme1n1
set ra fixed:3

column "1x c32"
set swap_cluster 32
repeat 3
    run hogmem 72 3
end
column "2x c32"
repeat 3
    parallel
        run hogmem 36 3
        run hogmem 36 3
    end
end

column "1x c256"
set swap_cluster 256
repeat 3
    run hogmem 72 3
end
column "2x c256"
repeat 3
    parallel
        run hogmem 36 3
        run hogmem 36 3
    end
end

column "1x c512"
set swap_cluster 512
repeat 3
    run hogmem 72 3
end
column "2x c512"
repeat 3
    parallel
        run hogmem 36 3
        run hogmem 36 3
    end
end
