"""Train a small MLP to classify 8x8 handwritten digits, with a jitted training step.

Runs on numjax exactly as written for JAX (`import numjax as jax`; with `import jax` instead it
runs under JAX, or under numjax again through `numjax run examples/mnist_digits.py`):

    python examples/mnist_digits.py [--epochs N]

The data (`examples/data/digits.npz`, 1797 images, see examples/data/README.md) is the UCI
"Optical Recognition of Handwritten Digits" test set as shipped by scikit-learn.
"""

import argparse
import functools
import os
import sys
import time

import numpy as np

import numjax as jax
import numjax.numpy as jnp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.npz")
LAYER_SIZES = [64, 128, 64, 10]
BATCH_SIZE = 64
LEARNING_RATE = 0.05
MOMENTUM = 0.9


def load_digits():
    """Images scaled to [0, 1] as float32 vectors, labels as int32, split 1437 / 360 (80 / 20)."""
    with np.load(DATA) as data:
        images = data["images"].astype(np.float32) / 16.0
        labels = data["labels"].astype(np.int32)
    # A fixed shuffle before the split: the file is ordered by writer, not by class.
    order = np.random.default_rng(1998).permutation(len(labels))
    images, labels = images[order], labels[order]
    n_train = int(0.8 * len(labels))
    return (images[:n_train], labels[:n_train]), (images[n_train:], labels[n_train:])


def init_params(rng, sizes):
    """He-initialised weights and zero biases, one (w, b) pair per layer."""
    # numpy's RNG keeps this example independent of numjax.random; with JAX one would write
    # `jax.random.normal(key, (m, n))` for each layer instead.
    return [
        (
            jnp.asarray(rng.normal(0.0, np.sqrt(2.0 / m), size=(m, n)).astype(np.float32)),
            jnp.zeros(n),
        )
        for m, n in zip(sizes[:-1], sizes[1:], strict=False)
    ]


def predict(params, image):
    """Logits of one image (a 64-vector)."""
    x = image
    for w, b in params[:-1]:
        x = jnp.maximum(x @ w + b, 0.0)
    w, b = params[-1]
    return x @ w + b


def log_softmax(logits):
    shifted = logits - jnp.max(logits, axis=-1, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))


def example_loss(params, image, label):
    """Cross-entropy of one example: minus the log-probability of its label."""
    return -log_softmax(predict(params, image))[label]


def loss(params, images, labels):
    return jnp.mean(jax.vmap(example_loss, in_axes=(None, 0, 0))(params, images, labels))


@jax.jit
def accuracy(params, images, labels):
    logits = jax.vmap(predict, in_axes=(None, 0))(params, images)
    return jnp.mean(jnp.argmax(logits, axis=-1) == labels)


# params and velocity are donated: the step returns new ones of the same shapes and dtypes, so
# their buffers can be reused for the new values (every donated input pairs with an output; an
# unpaired one would draw JAX's "Some donated buffers were not usable" warning).
@functools.partial(jax.jit, donate_argnums=(0, 1))
def train_step(params, velocity, images, labels):
    """One step of SGD with momentum; returns the new params and velocity, and the batch loss."""
    value, grads = jax.value_and_grad(loss)(params, images, labels)
    velocity = jax.tree_util.tree_map(lambda v, g: MOMENTUM * v + g, velocity, grads)
    params = jax.tree_util.tree_map(lambda p, v: p - LEARNING_RATE * v, params, velocity)
    return params, velocity, value


def progress_bar(done, total, width=30):
    filled = int(width * done / total)
    return "[" + "#" * filled + "." * (width - filled) + "]"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    (train_x, train_y), (test_x, test_y) = load_digits()
    rng = np.random.default_rng(args.seed)
    params = init_params(rng, LAYER_SIZES)
    velocity = jax.tree_util.tree_map(jnp.zeros_like, params)
    steps_per_epoch = len(train_y) // BATCH_SIZE  # whole batches only: one shape, one compile
    interactive = sys.stdout.isatty()
    print(f"digits: {len(train_y)} train / {len(test_y)} test images, MLP {LAYER_SIZES}")

    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(train_y))
        total = 0.0
        for step in range(steps_per_epoch):
            batch = order[step * BATCH_SIZE : (step + 1) * BATCH_SIZE]
            params, velocity, value = train_step(params, velocity, train_x[batch], train_y[batch])
            total += float(value)
        line = f"epoch {epoch:3d}/{args.epochs} {progress_bar(epoch, args.epochs)}"
        line += f" loss {total / steps_per_epoch:.4f}"
        if interactive:  # redraw one line in a terminal; one line per epoch in a log file
            sys.stdout.write("\r" + line)
            sys.stdout.flush()
        else:
            print(line)
    if interactive:
        print()

    train_acc = float(accuracy(params, train_x, train_y))
    test_acc = float(accuracy(params, test_x, test_y))
    print(f"train accuracy {train_acc:.4f}")
    print(f"test accuracy {test_acc:.4f}")
    print(f"total time {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
