build-dev/workloads/rt/rt_clone.o: tests/workloads/rt/rt_clone.S
