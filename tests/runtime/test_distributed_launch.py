"""How `numjax.distributed.initialize` reads a Slurm launch (no MPI needed: the check reads
the environment and what MPI reported). A real singleton run of it is in tests/distributed."""

from __future__ import annotations

import pytest

from numjax._src.runtime.distributed import _check_slurm

SRUN_TASK = {"SLURM_JOB_ID": "17", "SLURM_NTASKS": "4", "SLURM_PROCID": "2"}

FINE = [
    ("no Slurm", {}, 1),
    ("inside an allocation, not an srun task", {"SLURM_JOB_ID": "17", "SLURM_NTASKS": "4"}, 1),
    ("srun with the pmi2 plugin", {**SRUN_TASK, "PMI_FD": "5", "PMI_RANK": "2"}, 4),
    ("srun with PMIx", {**SRUN_TASK, "PMIX_RANK": "2"}, 4),
    ("mpiexec inside an allocation", {**SRUN_TASK, "PMI_RANK": "0", "PMI_SIZE": "2"}, 2),
    ("srun of one task", {**SRUN_TASK, "SLURM_NTASKS": "1", "SLURM_PROCID": "0"}, 1),
]


@pytest.mark.parametrize("env,size", [(e, s) for _, e, s in FINE], ids=[n for n, _, _ in FINE])
def test_launches_that_mpi_sees_whole(env: dict[str, str], size: int) -> None:
    _check_slurm(size, 0, env)  # returns: nothing to say


def test_srun_without_a_pmi_plugin_says_how_to_launch() -> None:
    with pytest.raises(RuntimeError, match=r"Slurm started 4 tasks \(this is task 2\), but MPI "
                       r"sees this process alone.*srun --mpi=pmi2"):
        _check_slurm(1, 0, SRUN_TASK)
