build-dev-lockdep/workloads/rt/rt_clone.o: tests/workloads/rt/rt_clone.S
