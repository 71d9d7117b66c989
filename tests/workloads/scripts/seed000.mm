# seed000.mm: Konstantin's readahead table (docs/seeds.md, seed 000), ten runs
# per column, with Hugh's sequential touch test as the workload: 72 MiB
# touched in 48 MiB of RAM, swapping to one mkswap'ed NVMe disk.
#
#   make script-image SCRIPT=tests/workloads/scripts/seed000.mm
#   truncate -s 256M build/swap.img && mkswap build/swap.img
#   tools/qemu-run --image build/scripts/seed000.img --disk build/swap.img --timeout 7200
mem 48M
swap nvme1n1

column "RA=3"
set ra fixed:3
repeat 10
    run touch 72 30000 seq anon
end

column "RA=0"
set ra off
repeat 10
    run touch 72 30000 seq anon
end

column "RA=1"
set ra fixed:1
repeat 10
    run touch 72 30000 seq anon
end

column "RA=2"
set ra fixed:2
repeat 10
    run touch 72 30000 seq anon
end

column "RA=4"
set ra fixed:4
repeat 10
    run touch 72 30000 seq anon
end

# The adaptive policies, bounded by page_cluster 3 as in Linux.
column "Hugh"
set ra hugh
set page_cluster 3
repeat 10
    run touch 72 30000 seq anon
end

column "Shaohua"
set ra shaohua
set page_cluster 3
repeat 10
    run touch 72 30000 seq anon
end
