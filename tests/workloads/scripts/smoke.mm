# smoke.mm: the QEMU test's tiny workload script.  Two table columns, one
# of them repeated, the other a parallel group; swapping on whatever swap
# area the kernel found at boot.
mem 48M
swap auto

probe on
column "seq RA=3"
set ra fixed:3
repeat 2
    run touch 56 20000 seq anon
end

column "pair RA=0"
set page_cluster 0
parallel
    run touch 24 3000 random anon
    run hogmem 24 1
end
probe off
