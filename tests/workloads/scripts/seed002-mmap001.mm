# seed002-mmap001.mm: seed 002's mmap test (Randy Hron, 2001: "mmap,
# touch, msync, and munmap 500000 pages 5 times" on 1 GiB of RAM, with an
# mp3 that had to keep playing and `vmstat 1` beside it).  Here a region
# of twice the RAM on a data disk, mapped MAP_SHARED, every page written,
# msync, munmap; five runs, as the seed averaged five.  The latency probe
# stands in for the mp3 player, the vmstat sampler for `vmstat 1`; the
# seed's figures are real/user/sys time and major/minor faults (the run's
# row and each mmap001 record).
#
#   make script-image SCRIPT=tests/workloads/scripts/seed002-mmap001.mm
#   truncate -s 256M build/swap.img && mkswap build/swap.img
#   truncate -s 512M build/data.img
#   tools/qemu-run --image build/scripts/seed002-mmap001.img --disk build/swap.img \
#                  --disk build/data.img --timeout 7200
mem 128M
swap nvme1n1
data nvme2n1
probe on
vmstat 1000

column "mmap001"
repeat 5
    run mmap001 /dev/nvme2n1 256 1
end
