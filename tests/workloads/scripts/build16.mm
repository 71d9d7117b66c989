# build16.mm: the shape of seed 000's kernel build (docs/seeds.md) ("make -j16 on tmpfs,
# 512mb ram") as Konstantin tabled it: 16 threads at once, each with its
# own share of 72 MiB (1.5x RAM), doing rounds of a sequential burst of
# 32 pages, 8 random pages and some arithmetic; 300 rounds each, so the
# work is fixed and real time compares the policies.  Columns in his
# order (RA=3, RA=0..4, Hugh, Shaohua) plus VMA and own.
#   tools/matrix tests/workloads/scripts/build16.mm --profile hdd
# The columns interleave (each round runs every column once) after one
# warm-up run of a shorter build (its own column, compared with none).
# One column after another, the first had the advantage: at none under
# --icount the first column (RA=3) swapped 271 to 1617 pages in per run
# where the others swapped 1359 to 9749, and took 94 major faults against
# own's 475.  Every `set ra` starts the machine's verdict on pages read
# outside streams afresh, so each own run learns it as a build started
# right after `set ra own` would (README, "The own policy against the
# fixed settings on the seed scripts").
mem 48M
swap nvme1n1

column "warm-up"
run threads 16 72 600 100

repeat 3
    column "RA=3"
    set ra fixed:3
    run threads 16 72 600 300
    column "RA=0"
    set ra off
    run threads 16 72 600 300
    column "RA=1"
    set ra fixed:1
    run threads 16 72 600 300
    column "RA=2"
    set ra fixed:2
    run threads 16 72 600 300
    column "RA=4"
    set ra fixed:4
    run threads 16 72 600 300
    column "Hugh"
    set ra hugh
    set page_cluster 3
    run threads 16 72 600 300
    column "Shaohua"
    set ra shaohua
    set page_cluster 3
    run threads 16 72 600 300
    column "VMA"
    set ra vma
    set page_cluster 3
    run threads 16 72 600 300
    column "own"
    set ra own
    run threads 16 72 600 300
end
