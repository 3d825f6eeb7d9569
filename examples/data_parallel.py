"""Train the digits MLP data-parallel: every device holds the parameters, each takes a slice of
the batch, and the gradients are averaged with `pmean` over all devices of all processes.

    python examples/data_parallel.py                     # one process, its devices
    NUMJAX_NUM_CPU_DEVICES=2 python examples/data_parallel.py
    mpiexec -n 2 python examples/data_parallel.py        # two processes (pip install 'numjax[mpi]')
    mpiexec -n 4 -f hosts python examples/data_parallel.py   # across hosts: an MPICH hostfile
    mpiexec -n 2 python examples/data_parallel.py --shard-map  # jit of shard_map, global Arrays

Each process sees the same data and takes its own devices' slices of every global batch, so the
model (and the accuracy) is the same whatever the number of processes and devices. With
`--shard-map` the same step runs as a jitted `shard_map` over a mesh of every device, on global
Arrays made from each process's part (`multihost_utils.host_local_array_to_global_array`).
"""

import argparse
import os
import sys

import numpy as np

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax.experimental import multihost_utils
from numjax.experimental.shard_map import shard_map
from numjax.sharding import Mesh
from numjax.sharding import PartitionSpec as P

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mnist_digits import LAYER_SIZES, accuracy, init_params, load_digits, loss

GLOBAL_BATCH = 64
LEARNING_RATE = 0.05
MOMENTUM = 0.9


def train_step(params, velocity, images, labels):
    """One SGD-with-momentum step on this device's slice; gradients averaged over every device."""
    value, grads = jax.value_and_grad(loss)(params, images, labels)
    grads = lax.pmean(grads, "devices")
    velocity = jax.tree_util.tree_map(lambda v, g: MOMENTUM * v + g, velocity, grads)
    params = jax.tree_util.tree_map(lambda p, v: p - LEARNING_RATE * v, params, velocity)
    return params, velocity, lax.pmean(value, "devices")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shard-map", action="store_true",
                        help="a jitted shard_map over global Arrays instead of pmap")
    args = parser.parse_args(argv)

    if any(k in os.environ for k in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_PROCID")):
        jax.distributed.initialize()  # started by an MPI launcher: join the other processes
    n_devices, n_local = jax.device_count(), jax.local_device_count()
    first = jax.process_index() * n_local  # this process's first device in the global order
    if GLOBAL_BATCH % n_devices:
        raise SystemExit(f"{n_devices} devices do not divide the batch of {GLOBAL_BATCH}")
    per_device = GLOBAL_BATCH // n_devices

    (train_x, train_y), (test_x, test_y) = load_digits()
    rng = np.random.default_rng(args.seed)
    params = init_params(rng, LAYER_SIZES)
    velocity = jax.tree_util.tree_map(jnp.zeros_like, params)
    if args.shard_map:
        mesh = Mesh(np.array(jax.devices()), ("devices",))
        step = jax.jit(shard_map(train_step, mesh,
                                 in_specs=(P(), P(), P("devices"), P("devices")),
                                 out_specs=(P(), P(), P())), donate_argnums=(0, 1))
        params, velocity = multihost_utils.host_local_array_to_global_array(
            (params, velocity), mesh, P())

        def place(images, labels):  # this process's rows, as parts of the global batch
            return multihost_utils.host_local_array_to_global_array(
                (images.reshape(n_local * per_device, -1), labels.reshape(-1)), mesh,
                P("devices"))
    else:
        params, velocity = jax.device_put_replicated((params, velocity), jax.local_devices())
        step = jax.pmap(train_step, axis_name="devices", donate_argnums=(0, 1))

        def place(images, labels):
            return images, labels
    steps_per_epoch = len(train_y) // GLOBAL_BATCH
    if jax.process_index() == 0:
        print(f"digits: {len(train_y)} train / {len(test_y)} test images, MLP {LAYER_SIZES}, "
              f"{n_devices} devices in {jax.process_count()} processes")
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(train_y))  # the same on every process (same seed)
        total = 0.0
        for k in range(steps_per_epoch):
            batch = order[k * GLOBAL_BATCH:(k + 1) * GLOBAL_BATCH]
            mine = batch[first * per_device:(first + n_local) * per_device]
            images = train_x[mine].reshape(n_local, per_device, -1)
            labels = train_y[mine].reshape(n_local, per_device)
            params, velocity, value = step(params, velocity, *place(images, labels))
            total += float(value if args.shard_map else value[0])
        if jax.process_index() == 0 and (epoch % 5 == 0 or epoch == args.epochs):
            print(f"epoch {epoch:3d}/{args.epochs} loss {total / steps_per_epoch:.4f}")

    final = params if args.shard_map else jax.tree_util.tree_map(lambda x: x[0], params)
    if jax.process_index() == 0:
        print(f"train accuracy {float(accuracy(final, train_x, train_y)):.4f}")
        print(f"test accuracy {float(accuracy(final, test_x, test_y)):.4f}")


if __name__ == "__main__":
    main()
