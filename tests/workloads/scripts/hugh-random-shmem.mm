# hugh-random-shmem.mm: one quarter of Hugh's matrix (seed 000 in docs/seeds.md): random touches
# of a 72 MiB shared (shmem) mapping in 48 MiB of RAM under every
# readahead policy: off and fixed:1..4 (Linux's page-cluster),
# Hugh's and Shaohua's adaptive windows and Linux 4.14's VMA-based
# one (each bounded by page_cluster 3, Linux's default), and this
# kernel's own policy.  Three runs per column.
#   tools/matrix tests/workloads/scripts/hugh-random-shmem.mm --profile ssd
mem 48M
swap nvme1n1

column "RA=0"
set ra off
repeat 3
    run touch 72 30000 random shmem
end

column "RA=1"
set ra fixed:1
repeat 3
    run touch 72 30000 random shmem
end

column "RA=2"
set ra fixed:2
repeat 3
    run touch 72 30000 random shmem
end

column "RA=3"
set ra fixed:3
repeat 3
    run touch 72 30000 random shmem
end

column "RA=4"
set ra fixed:4
repeat 3
    run touch 72 30000 random shmem
end

column "Hugh"
set ra hugh
set page_cluster 3
repeat 3
    run touch 72 30000 random shmem
end

column "Shaohua"
set ra shaohua
set page_cluster 3
repeat 3
    run touch 72 30000 random shmem
end

column "VMA"
set ra vma
set page_cluster 3
repeat 3
    run touch 72 30000 random shmem
end

column "own"
set ra own
repeat 3
    run touch 72 30000 random shmem
end
