# hugh-seq-anon.mm: one quarter of Hugh's matrix (seed 000 in docs/seeds.md): seq touches
# of a 72 MiB private anonymous mapping in 48 MiB of RAM under every
# readahead policy: off and fixed:1..4 (Linux's page-cluster),
# Hugh's and Shaohua's adaptive windows and Linux 4.14's VMA-based
# one (each bounded by page_cluster 3, Linux's default), and this
# kernel's own policy.  Three runs per column.
#   tools/matrix tests/workloads/scripts/hugh-seq-anon.mm --profile ssd
# The columns interleave (each round runs every column once) after a
# warm-up run of another workload, so what drifts over a boot weighs
# on all of them alike (README, "Column order").
mem 48M
swap nvme1n1

column "warm-up"
run touch 72 30000 random anon 2

repeat 3
    column "RA=0"
    set ra off
    run touch 72 40000 seq anon
    column "RA=1"
    set ra fixed:1
    run touch 72 40000 seq anon
    column "RA=2"
    set ra fixed:2
    run touch 72 40000 seq anon
    column "RA=3"
    set ra fixed:3
    run touch 72 40000 seq anon
    column "RA=4"
    set ra fixed:4
    run touch 72 40000 seq anon
    column "Hugh"
    set ra hugh
    set page_cluster 3
    run touch 72 40000 seq anon
    column "Shaohua"
    set ra shaohua
    set page_cluster 3
    run touch 72 40000 seq anon
    column "VMA"
    set ra vma
    set page_cluster 3
    run touch 72 40000 seq anon
    column "own"
    set ra own
    run touch 72 40000 seq anon
end
