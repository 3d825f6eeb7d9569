"""Multi-process tests: collected only under an MPI launcher (`mpiexec -n 2 python -m mpi4py
-m pytest tests/distributed`) or with NUMJAX_TEST_DISTRIBUTED=1 (one process, no launcher:
the singleton case). The default test run stays free of MPI, so a machine without the `[mpi]`
extra passes it. Every rank runs the same tests in the same order: their collectives meet.
"""

import os

_LAUNCHED = any(k in os.environ for k in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                          "SLURM_PROCID"))

if not (_LAUNCHED or os.environ.get("NUMJAX_TEST_DISTRIBUTED") == "1"):
    collect_ignore_glob = ["test_*.py"]
else:
    import numjax

    numjax.distributed.initialize()  # once, before any computation, as a JAX program does
