"""The Python side of the project's tools: one package that the
extension-less commands in tools/ (matrix, bench, linux-peer, qemu-run,
results, mkscript-image) wrap.

  rig      start QEMU the project's way and classify how a boot ended
  records  JSON records from serial consoles and results files
  stats    mean, sd, stderr: the one implementation every tool uses
  tables   plain-text tables and mean±spread cells
  remote   spread boots over hosts with GNU parallel (tools/matrix)

Unit tests: tools/tests (pytest), `make tools-test`.
"""
