# seed003-shmdb.mm: seed 003 (Michal Hocko, 2012, "mm: consider all swapped
# back pages in used-once logic"): a shmem-backed database at 80% of RAM,
# transactions on random rows, with I/O in the background at 20% of the
# disk's bandwidth.  Commit 64574746 ("vmscan: detect mapped file pages
# used only once") let the streaming file pages push the database to swap:
# three times fewer transactions in the worst run and a standard deviation
# of 63% of the mean, against about 4% with the fix.  Columns: the knob
# used_once_swapbacked off (64574746's verdict: only anon pages count as
# used more than once) and on (the 3.4 fix: every swap-backed page does),
# five runs each.  Transactions/s per run, and per second, are in each
# run's shmdb record (tps, tps_series); the table has them as rows
# (`row`: mean±stderr, the record's sd) beside pgpgin, pswpin, pswpout
# and pgmajfault, and stream's achieved rate.  stream measures the disk for its first second,
# then reads at 20% of that.
#
#   make script-image SCRIPT=tests/workloads/scripts/seed003-shmdb.mm
#   truncate -s 512M build/swap.img && mkswap build/swap.img
#   truncate -s 1G build/data.img
#   tools/qemu-run --image build/scripts/seed003-shmdb.img --disk build/swap.img \
#                  --disk build/data.img --timeout 7200
mem 128M
swap nvme1n1
row shmdb.tps
row shmdb.tps_min
row shmdb.tps_max
row stream.mb_per_s_x100

column "used_once_swapbacked=off"
set used_once_swapbacked off
repeat 5
    parallel
        run shmdb 80% 60
        run stream /dev/nvme2n1 1024 read 20% 60
    end
end

column "used_once_swapbacked=on"
set used_once_swapbacked on
repeat 5
    parallel
        run shmdb 80% 60
        run stream /dev/nvme2n1 1024 read 20% 60
    end
end
