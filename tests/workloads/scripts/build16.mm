# build16.mm: the shape of seed 000's kernel build (docs/seeds.md) ("make -j16 on tmpfs,
# 512mb ram") as Konstantin tabled it: 16 threads at once, each with its
# own share of 72 MiB (1.5x RAM), doing rounds of a sequential burst of
# 32 pages, 8 random pages and some arithmetic; 300 rounds each, so the
# work is fixed and real time compares the policies.  Columns in his
# order (RA=3, RA=0..4, Hugh, Shaohua) plus VMA and own.
#   tools/matrix tests/workloads/scripts/build16.mm --profile hdd
mem 48M
swap nvme1n1

column "RA=3"
set ra fixed:3
repeat 3
    run threads 16 72 600 300
end

column "RA=0"
set ra off
repeat 3
    run threads 16 72 600 300
end

column "RA=1"
set ra fixed:1
repeat 3
    run threads 16 72 600 300
end

column "RA=2"
set ra fixed:2
repeat 3
    run threads 16 72 600 300
end

column "RA=4"
set ra fixed:4
repeat 3
    run threads 16 72 600 300
end

column "Hugh"
set ra hugh
set page_cluster 3
repeat 3
    run threads 16 72 600 300
end

column "Shaohua"
set ra shaohua
set page_cluster 3
repeat 3
    run threads 16 72 600 300
end

column "VMA"
set ra vma
set page_cluster 3
repeat 3
    run threads 16 72 600 300
end

column "own"
set ra own
repeat 3
    run threads 16 72 600 300
end
