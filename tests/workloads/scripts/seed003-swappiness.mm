# seed003-swappiness.mm: issue 13's swappiness sweep on seed 003's load:
# shmdb at 80% of RAM beside stream reading a mapped data disk at 20% of
# its bandwidth (as seed003-shmdb.mm, used_once_swapbacked on, the
# default), with vm.swappiness 0, 60 (the default), 100 and 200: how the
# scan pressure moves between the database (swap-backed: pswpout, pswpin,
# the anon LRU sizes) and the stream's file pages (pgpgin, the file LRU
# sizes), and what that does to transactions/s.  tools/linux-peer
# --sysctl swappiness=0,60,100,200 runs the same on Linux 6.1
# (docs/seed-benchmarks.md).
#
#   make script-image SCRIPT=tests/workloads/scripts/seed003-swappiness.mm
#   truncate -s 512M build/swap.img && mkswap build/swap.img
#   truncate -s 1G build/data.img
#   tools/qemu-run --image build/scripts/seed003-swappiness.img --disk build/swap.img \
#                  --disk build/data.img --icount=exact --timeout 14400 --summary
mem 128M
swap nvme1n1
row shmdb.tps
row shmdb.tps_min
row stream.mb_per_s_x100
row shmdb.nr_inactive_anon_avg
row shmdb.nr_active_anon_avg
row shmdb.nr_inactive_file_avg
row shmdb.nr_active_file_avg

column "swappiness=0"
set swappiness 0
repeat 3
    parallel
        run shmdb 80% 60
        run stream /dev/nvme2n1 1024 mmap-read 20% 60
    end
end

column "swappiness=60"
set swappiness 60
repeat 3
    parallel
        run shmdb 80% 60
        run stream /dev/nvme2n1 1024 mmap-read 20% 60
    end
end

column "swappiness=100"
set swappiness 100
repeat 3
    parallel
        run shmdb 80% 60
        run stream /dev/nvme2n1 1024 mmap-read 20% 60
    end
end

column "swappiness=200"
set swappiness 200
repeat 3
    parallel
        run shmdb 80% 60
        run stream /dev/nvme2n1 1024 mmap-read 20% 60
    end
end
