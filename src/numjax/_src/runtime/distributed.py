"""Several processes (and hosts) running one program, on MPI: `numjax.distributed`.

Processes are started by an MPI launcher (`mpiexec -n 4 python prog.py`, a hostfile for several
hosts, or Slurm's `srun`); `initialize()` finds its rank and the process count from MPI, takes
a communicator of its own (a duplicate of the world communicator, so user mpi4py traffic never
mixes with numjax's), and the CPU backend then lists every process's devices (global ids
`process * local_count + i`) with this process's as the local ones. A pmap maps over all the
devices: each process passes its local shards, and a collective combines the local devices'
values first (one thread, at the devices' barrier) and then makes one MPI call across the
processes (`runtime/spmd.py`).

An exception leaving the program on any rank aborts the whole job (`MPI.Abort`) after printing
that rank's traceback, so no rank is left waiting in a collective. mpi4py is imported only
here, and only when distributed mode is asked for: `pip install 'numjax[mpi]'` brings it with
the MPICH wheel.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from numjax._src.runtime import devices


class _State:
    def __init__(self) -> None:
        self.comm: Any = None
        self.process_index = 0
        self.process_count = 1
        self.mpi: Any = None
        # Processes of the job on this host (they share its cores).
        self.host_processes = 1
        # What runtime/spmd.py derives from `comm` (how each grouped collective splits the
        # processes, and the communicators split off), dropped and freed before `comm` is.
        self.classes: dict[Any, Any] = {}
        self.derived: list[Any] = []


state = _State()

_INSTALL = ("numjax.distributed needs mpi4py and an MPI: install them with "
            "`pip install 'numjax[mpi]'` (mpi4py and the MPICH wheel), or mpi4py built "
            "against your site's MPI.")


def _import_mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(_INSTALL) from e
    return MPI


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids: Any = None,
               cluster_detection_method: str | None = None,
               initialization_timeout: int = 300,
               coordinator_bind_address: str | None = None) -> None:
    """Join the job's processes (started by an MPI launcher). Rank and process count come
    from MPI; `num_processes` and `process_id`, when given, must agree with it.
    `coordinator_address` is accepted for compatibility (MPI needs none).

    Must run before any computation, once per process, as in JAX."""
    if state.comm is not None:
        raise RuntimeError("distributed.initialize should only be called once.")
    if devices._backends:
        raise RuntimeError("jax.distributed.initialize() must be called before any JAX "
                           "computations are executed.")
    if cluster_detection_method not in (None, "mpi4py"):
        raise ValueError(f"cluster_detection_method={cluster_detection_method!r}: numjax "
                         "finds its processes through MPI (None or 'mpi4py').")
    mpi = _import_mpi()
    world = mpi.COMM_WORLD
    size, rank = world.Get_size(), world.Get_rank()
    _check_slurm(size, rank, os.environ)
    if num_processes is not None and num_processes != size:
        raise ValueError(f"num_processes={num_processes} was given, but MPI started {size} "
                         f"processes: launch with `mpiexec -n {num_processes}` or drop the "
                         "argument.")
    if process_id is not None and process_id != rank:
        raise ValueError(f"process_id={process_id} was given, but MPI gives this process "
                         f"rank {rank}: drop the argument to use MPI's rank.")
    comm = world.Dup()
    local = devices._num_cpu_devices() if local_device_ids is None else len(
        [local_device_ids] if isinstance(local_device_ids, int) else local_device_ids)
    counts = comm.allgather(local)
    if len(set(counts)) != 1:
        raise ValueError("Number of local devices must be the same on every process, got "
                         f"{counts} (set the device count alike on every process).")
    state.comm, state.mpi = comm, mpi
    state.process_index, state.process_count = rank, size
    host = world.Split_type(mpi.COMM_TYPE_SHARED)
    state.host_processes = host.Get_size()
    host.Free()
    if size > 1:
        sys.excepthook = _abort_job


def _check_slurm(size: int, rank: int, env: Mapping[str, str]) -> None:
    """Under Slurm's `srun`, MPI learns of the other tasks through a PMI plugin. Started
    without one, every task is a job of one process of its own: each would compute alone and
    agree with nobody. Say so instead."""
    tasks, task = env.get("SLURM_NTASKS"), env.get("SLURM_PROCID")
    if "SLURM_JOB_ID" not in env or tasks is None or task is None:
        return  # not a task of an srun step
    # A launcher's own PMI (mpiexec's, or srun's plugin) sets these; mpiexec inside a Slurm
    # allocation starts its processes with the allocation's variables, which then count nodes.
    if any(k in env for k in ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "PMI_SIZE",
                              "OMPI_COMM_WORLD_SIZE")):
        return
    if size == 1 and int(tasks) > 1:
        raise RuntimeError(
            f"Slurm started {tasks} tasks (this is task {task}), but MPI sees this process "
            "alone: srun started it without a PMI plugin, so MPI cannot find the others. "
            "Launch with `srun --mpi=pmi2 ...` (MPICH, the [mpi] extra's MPI) or "
            "`srun --mpi=pmix ...` for an MPI built with PMIx (`srun --mpi=list` shows the "
            "plugins), or with `mpiexec` inside the allocation.")


def shutdown() -> None:
    """Leave the job: frees numjax's communicator (MPI itself finalizes at exit)."""
    state.classes.clear()
    for derived in state.derived:
        derived.Free()
    state.derived.clear()
    if state.comm is not None:
        state.comm.Free()
    state.comm = None
    state.process_index, state.process_count = 0, 1
    state.host_processes = 1
    if sys.excepthook is _abort_job:
        sys.excepthook = sys.__excepthook__


def is_initialized() -> bool:
    return state.comm is not None


def _abort_job(kind: type[BaseException], value: BaseException,
               tb: TracebackType | None) -> None:
    """An uncaught exception on one rank ends every rank (none waits in a collective)."""
    sys.stderr.write(f"numjax: process {state.process_index} of {state.process_count} "
                     "failed; aborting the job.\n")
    traceback.print_exception(kind, value, tb)
    sys.stderr.flush()
    if state.comm is not None:
        state.comm.Abort(1)
