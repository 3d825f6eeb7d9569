"""numjax.example_libraries (optimizers, stax) against values recorded from JAX 0.4.30."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import random
from numjax.example_libraries import optimizers, stax

# Recorded from JAX 0.4.30 (jax.example_libraries) on CPU.

TRAJECTORIES = {
    "optimizers.sgd(0.1)": [
        ([0.7, -0.5, 1.9], [[0.2417879, -0.5820393], [1.0633132, 0.0800666]]),
        ([0.86, -0.1, 1.8199999], [[0.1943685, -0.4784462], [0.9242414, 0.0640875]]),
        ([0.988, 0.22, 1.7559999], [[0.155983, -0.3899339], [0.788745, 0.0512875]]),
    ],
    "optimizers.momentum(0.1, 0.9)": [
        ([0.7, -0.5, 1.9], [[0.2417879, -0.5820393], [1.0633132, 0.0800666]]),
        ([1.04, 0.35, 1.73], [[0.1419776, -0.3722816], [0.8012233, 0.0461474]]),
        ([1.438, 1.345, 1.531], [[0.0239434, -0.1124474], [0.4377701, 0.0063973]]),
    ],
    "optimizers.nesterov(0.1, 0.9)": [
        ([0.88, -0.05, 1.8099999], [[0.189397, -0.4758746], [0.9402951, 0.0621266]]),
        ([1.2776, 0.9439999, 1.6112], [[0.0711326, -0.2129141], [0.570783, 0.0224028]]),
        ([1.6083521, 1.77088, 1.445824], [[-0.0286053, 0.0241387], [0.1668971, -0.0106918]]),
    ],
    "optimizers.adagrad(0.1)": [
        ([0.51, -0.99, 1.99], [[0.29, -0.69], [1.1900001, 0.09]]),
        ([0.5260354, -0.9739431, 1.9740007], [[0.2740426, -0.6739619], [1.1739192, 0.074308]]),
        ([0.5461586, -0.953751, 1.9539948], [[0.2541757, -0.6538318], [1.1536525, 0.0553459]]),
    ],
    "optimizers.rmsprop(0.1)": [
        ([0.8162278, -0.6837722, 1.6837723], [[-0.0162277, -0.3837723], [0.8837723, -0.2162274]]),
        ([1.0011294, -0.4695725, 1.5695316], [[0.0023232, -0.2109531], [0.657048, 0.0727735]]),
        ([1.1308194, -0.2983615, 1.5244353], [[-0.0004764, -0.112426], [0.4864098, -0.0259875]]),
    ],
    "optimizers.rmsprop_momentum(0.1)": [
        ([0.8162278, -0.6837722, 1.6837723], [[-0.0162277, -0.3837723], [0.8837723, -0.2162274]]),
        ([1.2857344, -0.1849675, 1.2849265], [[-0.2822817, 0.0736519], [0.3724431, -0.2118312]]),
        ([1.7682568, 0.4165466, 1.0546916], [[-0.2930143, 0.4488994], [-0.2059026, 0.009243]]),
    ],
    "optimizers.adam(0.1)": [
        ([0.5999993, -0.9000007, 1.9000007], [[0.2000007, -0.6000007], [1.1000007, 7e-07]]),
        ([0.6995861, -0.8001289, 1.8011891], [[0.1027762, -0.5004228], [0.9999613, -0.067005]]),
        ([0.7984107, -0.700477, 1.7048742], [[0.0127482, -0.4017896], [0.899929, -0.0743677]]),
    ],
    "optimizers.adamax(0.1)": [
        ([0.6, -0.9, 1.9], [[0.2, -0.6], [1.1, 0.0]]),
        ([0.6948316, -0.8020073, 1.8104367], [[0.1168639, -0.5052489], [1.0007938, -0.0474158]]),
        ([0.7845004, -0.7060664, 1.7309098], [[0.0495747, -0.4163718], [0.901413, -0.0597879]]),
    ],
    "optimizers.sm3(0.1)": [
        ([0.51, -0.99, 1.99], [[0.29, -0.69], [1.1900001, 0.09]]),
        ([0.5260354, -0.9739431, 1.9740007], [[0.2766874, -0.6739619], [1.1739192, 0.0794955]]),
        ([0.5461586, -0.953751, 1.9539948], [[0.261617, -0.6538318], [1.1536525, 0.0690903]]),
    ],
    "optimizers.sgd(optimizers.exponential_decay(0.1, 2, 0.5))": [
        ([0.7, -0.5, 1.9], [[0.2417879, -0.5820393], [1.0633132, 0.0800666]]),
        ([0.8131371, -0.2171573, 1.8434315], [[0.2082573, -0.5087879], [0.9649746, 0.0687677]]),
        ([0.8818234, -0.0454416, 1.8090883], [[0.1877317, -0.4622148], [0.8963982, 0.0619017]]),
    ],
    "optimizers.adam(optimizers.polynomial_decay(0.1, 3, 0.01))": [
        ([0.5999993, -0.9000007, 1.9000007], [[0.2000007, -0.6000007], [1.1000007, 7e-07]]),
        ([0.66971, -0.8300904, 1.8308326], [[0.1319436, -0.5302961], [1.0299731, -0.0469033]]),
        ([0.7093354, -0.7902052, 1.791957], [[0.0948432, -0.4907134], [0.9899545, -0.0547658]]),
    ],
    "optimizers.momentum(optimizers.piecewise_constant([1], [0.1, 0.02]), 0.5)": [
        ([0.7, -0.5, 1.9], [[0.2417879, -0.5820393], [1.0633132, 0.0800666]]),
        ([0.96, 0.15, 1.77], [[0.1652625, -0.4194658], [0.855898, 0.0541208]]),
        ([1.0075999, 0.269, 1.7462], [[0.1510595, -0.387401], [0.8088318, 0.0493635]]),
    ],
}

SCHEDULES = {
    "optimizers.constant(0.1)": [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
    "optimizers.exponential_decay(0.1, 3, 0.5)": [
        0.1,
        0.07937005,
        0.06299605,
        0.05,
        0.03968503,
        0.03149803,
        0.025,
    ],
    "optimizers.inverse_time_decay(0.1, 3, 0.5)": [
        0.1,
        0.08571429,
        0.075,
        0.06666667,
        0.06,
        0.05454545,
        0.05,
    ],
    "optimizers.inverse_time_decay(0.1, 3, 0.5, staircase=True)": [
        0.1,
        0.1,
        0.1,
        0.06666667,
        0.06666667,
        0.06666667,
        0.05,
    ],
    "optimizers.polynomial_decay(0.1, 5, 0.01, 2.0)": [
        0.1,
        0.0676,
        0.0424,
        0.0244,
        0.0136,
        0.01,
        0.01,
    ],
    "optimizers.piecewise_constant([2, 5], [0.1, 0.05, 0.01])": [
        0.1,
        0.1,
        0.1,
        0.05,
        0.05,
        0.05,
        0.01,
    ],
}

L2_NORM = 2.6981475353240967
CLIPPED_B = [[0.1111874, -0.2594373], [0.4447496, 0.0370625]]

X_SUM = -11.565500259399414
LAYERS = {
    "stax.Dense(4)": (
        "x",
        (2, 6, 6, 4),
        [(3, 4), (4,)],
        [1.128675, -0.010349],
        (2, 6, 6, 4),
        -6.83187,
        181.7365,
    ),
    "stax.Conv(2, (3, 3), (2, 1), 'SAME')": (
        "x",
        (2, 3, 6, 2),
        [(3, 3, 3, 2), (1, 1, 1, 2)],
        [-0.693231, -1e-06],
        (2, 3, 6, 2),
        0.1074,
        55.4524,
    ),
    "stax.GeneralConv(('NCHW', 'OIHW', 'NCHW'), 2, (2, 3))": (
        "x",
        (2, 2, 5, 1),
        [(2, 6, 2, 3), (1, 2, 1, 1)],
        [-0.644941, -1e-06],
        (2, 2, 5, 1),
        -3.91497,
        25.0821,
    ),
    "stax.ConvTranspose(2, (3, 3), (2, 2), 'SAME')": (
        "x",
        (2, 12, 12, 2),
        [(3, 3, 3, 2), (1, 1, 1, 2)],
        [-0.693231, -1e-06],
        (2, 12, 12, 2),
        1.57348,
        130.839,
    ),
    "stax.Conv1DTranspose(2, (3,), (2,))": (
        "x[:, :, 0, :]",
        (2, 13, 2),
        [(3, 3, 2), (1, 1, 2)],
        [1.379423, -1e-06],
        (2, 13, 2),
        -0.49251,
        36.9971,
    ),
    "stax.BatchNorm()": ("x", (2, 6, 6, 3), [(3,), (3,)], [0.0, 3.0], (2, 6, 6, 3), -0.0, 215.9976),
    "stax.BatchNorm(axis=0, center=False)": (
        "x",
        (2, 6, 6, 3),
        [(6, 6, 3)],
        [108.0],
        (2, 6, 6, 3),
        2e-05,
        214.5642,
    ),
    "stax.MaxPool((2, 2), (2, 2))": ("x", (2, 3, 3, 3), [], [], (2, 3, 3, 3), 51.69146, 76.2375),
    "stax.AvgPool((2, 3), padding='SAME')": (
        "x",
        (2, 6, 6, 3),
        [],
        [],
        (2, 6, 6, 3),
        -16.98573,
        50.4899,
    ),
    "stax.SumPool((2, 2), (1, 2), spec='NHWC')": (
        "x",
        (2, 5, 3, 3),
        [],
        [],
        (2, 5, 3, 3),
        -29.33647,
        323.393,
    ),
    "stax.AvgPool((2,), spec='NCH')": ("x[:, 0]", (2, 6, 2), [], [], (2, 6, 2), 4.41932, 8.6825),
    "stax.Flatten": ("x", (2, 108), [], [], (2, 108), -11.56551, 199.9521),
    "stax.Identity": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), -11.5655, 199.9521),
    "stax.Elu": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 22.76473, 126.1842),
    "stax.Gelu": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 50.64045, 80.017),
    "stax.Selu": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), -14.1677, 202.6513),
    "stax.LeakyRelu": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 75.72343, 94.3128),
    "stax.Relu": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 76.60513, 94.3023),
    "stax.Softmax": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 72.0, 34.343),
    "stax.LogSoftmax": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), -297.40414, 561.2343),
    "stax.Softplus": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 166.45239, 182.7432),
    "stax.Sigmoid": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 105.35014, 60.0115),
    "stax.Tanh": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), -8.60234, 80.9799),
    "stax.Exp": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), 338.42789, 1899.2743),
    "stax.serial(stax.Conv(3, (2, 2)), stax.Relu, stax.Flatten, stax.Dense(3), stax.LogSoftmax)": (
        "x",
        (2, 3),
        [(2, 2, 3, 3), (1, 1, 1, 3), (75, 3), (3,)],
        [-1.021942, -2e-06, 0.270015, 0.001775],
        (2, 3),
        -6.78551,
        8.0622,
    ),
    "stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Identity), stax.FanInSum)": (
        "x[:, 0, 0, :]",
        (2, 3),
        [(3, 3), (3,)],
        [0.203439, -0.019907],
        (2, 3),
        0.95677,
        17.993,
    ),
    "stax.serial(stax.FanOut(2), stax.parallel(stax.Dense(2), stax.Identity), "
    "stax.FanInConcat())": (
        "x[:, 0, 0, :]",
        (2, 5),
        [(3, 2), (2,)],
        [0.025403, -0.027086],
        (2, 5),
        2.20417,
        5.1274,
    ),
    "stax.Dropout(0.7)": ("x", (2, 6, 6, 3), [], [], (2, 6, 6, 3), -11.55628, 280.8612),
    "stax.serial(stax.Dense(5), stax.Dropout(0.5), stax.Dense(2))": (
        "x",
        (2, 6, 6, 2),
        [(3, 5), (5,), (5, 2), (2,)],
        [-0.348465, 0.009986, -0.829569, -0.01044],
        (2, 6, 6, 2),
        0.65984,
        196.5995,
    ),
    "stax.shape_dependent(lambda s: stax.Dense(s[-1]))": (
        "x",
        (2, 6, 6, 3),
        [(3, 3), (3,)],
        [2.237193, 0.030269],
        (2, 6, 6, 3),
        -0.36576,
        159.9305,
    ),
}

DENSE_W = [[0.4087826, 0.148967], [0.4502083, 0.0224189], [0.8113884, 0.7974769]]
DENSE_B = [0.0019308, -0.0052678]
NEG_BATCH_SHAPES = [
    "(0, 3)",
    "(np.int64(-1), np.int64(7), np.int64(7), np.int64(4))",
    "(0, 8, 8, 2)",
    "(0, np.int64(9), np.int64(9), np.int64(2))",
]
TRAIN_LOSSES = [0.9436547, 0.836491, 0.7489238, 0.6882614, 0.6486224, 0.6202261]
TRAIN_FINAL_LOSS = 0.5700805


def _loss(p: Any) -> Any:
    return jnp.sum((p["a"] - 1.5) ** 2) + jnp.sum(jnp.sin(p["b"]) * p["b"])


def _params() -> Any:
    return {"a": jnp.array([0.5, -1.0, 2.0]), "b": jnp.array([[0.3, -0.7], [1.2, 0.1]])}


# numjax's eager integer_pow (adam's bias correction b ** (i + 1)) rounds once where XLA
# multiplies, a few float32 ulps apart; the rest agrees to float32 rounding.
RTOL, ATOL = 2e-5, 2e-6


@pytest.mark.parametrize("expr", list(TRAJECTORIES))
def test_optimizer_trajectory_matches_jax(expr: Any) -> None:
    init_fn, update_fn, get_params = eval(expr)
    state = init_fn(_params())
    for i, (a, b) in enumerate(TRAJECTORIES[expr]):
        state = update_fn(i, numjax.grad(_loss)(get_params(state)), state)
        params = get_params(state)
        np.testing.assert_allclose(params["a"], a, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(params["b"], b, rtol=RTOL, atol=ATOL)
        assert params["a"].dtype == np.float32


@pytest.mark.parametrize("expr", list(SCHEDULES))
def test_schedule_values_match_jax(expr: Any) -> None:
    schedule = eval(expr)
    np.testing.assert_allclose([float(schedule(i)) for i in range(7)], SCHEDULES[expr], rtol=1e-6)


def test_make_schedule_l2_norm_and_clip_grads() -> None:
    assert optimizers.make_schedule(0.3)(5) == 0.3
    schedule = optimizers.exponential_decay(1.0, 1, 0.5)
    assert optimizers.make_schedule(schedule) is schedule
    with pytest.raises(TypeError):
        optimizers.make_schedule(jnp.ones(2))
    with pytest.raises(ValueError, match="one shorter"):
        optimizers.piecewise_constant([1, 2], [0.1, 0.2])
    np.testing.assert_allclose(optimizers.l2_norm(_params()), L2_NORM, rtol=1e-6)
    np.testing.assert_allclose(optimizers.clip_grads(_params(), 1.0)["b"], CLIPPED_B, rtol=1e-5)
    small = optimizers.clip_grads(_params(), 10.0)
    np.testing.assert_array_equal(small["a"], _params()["a"])


def test_optimizer_state_is_a_pytree_through_jit() -> None:
    init_fn, update_fn, get_params = optimizers.adam(0.1)
    state = init_fn(_params())
    assert isinstance(state, optimizers.OptimizerState)
    assert len(numjax.tree_util.tree_leaves(state)) == 2 * 3
    step = numjax.jit(lambda i, s: update_fn(i, numjax.grad(_loss)(get_params(s)), s))
    eager = state
    for i in range(3):
        state = step(i, state)
        eager = update_fn(i, numjax.grad(_loss)(get_params(eager)), eager)
    assert isinstance(state, optimizers.OptimizerState)
    assert state.tree_def == eager.tree_def
    for a, b in zip(
        numjax.tree_util.tree_leaves(state), numjax.tree_util.tree_leaves(eager), strict=True
    ):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(
        get_params(state)["a"], TRAJECTORIES["optimizers.adam(0.1)"][2][0], rtol=RTOL, atol=ATOL
    )


def test_update_rejects_a_gradient_tree_of_another_structure() -> None:
    init_fn, update_fn, _ = optimizers.sgd(0.1)
    state = init_fn(_params())
    with pytest.raises(TypeError, match="did not match the parameter tree structure"):
        update_fn(0, [jnp.ones(3)], state)


def test_unpack_and_pack_optimizer_state_round_trip() -> None:
    init_fn, update_fn, get_params = optimizers.momentum(0.1, 0.9)
    state = update_fn(0, numjax.grad(_loss)(_params()), init_fn(_params()))
    marked = optimizers.unpack_optimizer_state(state)
    assert isinstance(marked["a"], optimizers.JoinPoint)
    x, velocity = marked["a"].subtree
    np.testing.assert_allclose(x, TRAJECTORIES["optimizers.momentum(0.1, 0.9)"][0][0], rtol=1e-6)
    np.testing.assert_allclose(velocity, [-2.0, -5.0, 1.0], rtol=1e-6)
    packed = optimizers.pack_optimizer_state(marked)
    assert packed.tree_def == state.tree_def and packed.subtree_defs == state.subtree_defs
    for a, b in zip(
        numjax.tree_util.tree_leaves(packed), numjax.tree_util.tree_leaves(state), strict=True
    ):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(get_params(packed)["b"], get_params(state)["b"])


def test_custom_optimizer_via_the_decorator() -> None:
    @optimizers.optimizer
    def scaled(factor: Any) -> Any:
        return (
            lambda x: (x, jnp.zeros(())),
            lambda i, g, s: (s[0] - factor * g, s[1] + 1),
            lambda s: s[0],
        )

    init_fn, update_fn, get_params = scaled(2.0)
    assert isinstance(scaled(2.0), optimizers.Optimizer)
    state = update_fn(0, [jnp.ones(2)], init_fn([jnp.zeros(2)]))
    np.testing.assert_array_equal(get_params(state)[0], [-2.0, -2.0])


# ---- stax ----------------------------------------------------------------------------------


def _input() -> Any:  # `x` of the recorded layer inputs
    x = random.normal(random.PRNGKey(2), (2, 6, 6, 3))
    np.testing.assert_allclose(float(jnp.sum(x)), X_SUM, rtol=1e-5)
    return x


@pytest.mark.parametrize("expr", list(LAYERS))
def test_stax_layer_matches_jax(expr: Any) -> None:
    inputs = eval(LAYERS[expr][0], {"x": _input()})
    _, out_shape, param_shapes, param_sums, y_shape, y_sum, y_sq = LAYERS[expr]
    init_fun, apply_fun = eval(expr)
    shape, params = init_fun(random.PRNGKey(1), inputs.shape)
    assert tuple(int(d) for d in shape) == out_shape
    leaves = numjax.tree_util.tree_leaves(params)
    assert [leaf.shape for leaf in leaves] == param_shapes
    np.testing.assert_allclose(
        [float(jnp.sum(leaf)) for leaf in leaves], param_sums, rtol=1e-5, atol=2e-6
    )
    y = apply_fun(params, inputs, rng=random.PRNGKey(5))
    assert y.shape == y_shape
    np.testing.assert_allclose(float(jnp.sum(y)), y_sum, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(float(jnp.sum(y * y)), y_sq, rtol=1e-5)


def test_dense_init_reproduces_jax_parameters() -> None:
    shape, (W, b) = stax.Dense(2)[0](random.PRNGKey(0), (-1, 3))
    assert shape == (-1, 2)
    np.testing.assert_allclose(W, DENSE_W, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b, DENSE_B, rtol=1e-5, atol=1e-7)


def test_output_shapes_with_unknown_batch_print_as_jax() -> None:
    key = random.PRNGKey(1)
    shapes = [
        stax.serial(
            stax.Conv(4, (3, 3), (2, 2), padding="SAME"),
            stax.Relu,
            stax.MaxPool((2, 2), strides=(2, 2)),
            stax.Flatten,
            stax.Dense(3),
        )[0],
        stax.Conv(4, (3, 3))[0],
        stax.MaxPool((2, 2))[0],
        stax.AvgPool((2, 2), padding="SAME")[0],
    ]
    assert [repr(f(key, (-1, 9, 9, 2))[0]) for f in shapes] == NEG_BATCH_SHAPES


def test_dropout_needs_a_key_and_is_identity_outside_training() -> None:
    init_fun, apply_fun = stax.Dropout(0.5)
    with pytest.raises(ValueError, match="requires apply_fun to be called with a PRNG key"):
        apply_fun((), jnp.ones(3))
    key = random.PRNGKey(0)
    np.testing.assert_array_equal(stax.Dropout(0.5, mode="test")[1]((), jnp.ones(3), rng=key), 1.0)


def test_serial_network_trains_under_jit_with_adam_as_jax() -> None:
    init_fun, predict = stax.serial(
        stax.Dense(8), stax.Tanh, stax.Dense(8), stax.Relu, stax.Dense(3), stax.LogSoftmax
    )
    _, params = init_fun(random.PRNGKey(0), (-1, 4))
    xs = random.normal(random.PRNGKey(3), (16, 4))
    labels = numjax.nn.one_hot(jnp.arange(16) % 3, 3)

    def loss(params: Any, batch: Any) -> Any:
        inputs, targets = batch
        return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))

    opt_init, opt_update, get_params = optimizers.adam(0.05)

    @numjax.jit
    def update(i: Any, opt_state: Any, batch: Any) -> Any:
        value, g = numjax.value_and_grad(loss)(get_params(opt_state), batch)
        return value, opt_update(i, g, opt_state)

    state = opt_init(params)
    losses = []
    for i in range(len(TRAIN_LOSSES)):
        value, state = update(i, state, (xs, labels))
        losses.append(float(value))
    np.testing.assert_allclose(losses, TRAIN_LOSSES, rtol=1e-5)
    np.testing.assert_allclose(
        float(loss(get_params(state), (xs, labels))), TRAIN_FINAL_LOSS, rtol=1e-5
    )


JAX_PROGRAM = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp
    from jax import jit, grad, random
    from jax.example_libraries import optimizers, stax
    from jax.example_libraries.stax import Conv, Dense, Flatten, LogSoftmax, MaxPool, Relu

    init_random_params, predict = stax.serial(
        Conv(4, (3, 3), padding="SAME"), Relu, MaxPool((2, 2), strides=(2, 2)),
        Flatten, Dense(10), LogSoftmax)


    def loss(params, batch):
        inputs, targets = batch
        return -jnp.mean(jnp.sum(predict(params, inputs) * targets, axis=1))


    rng = random.PRNGKey(0)
    out_shape, params = init_random_params(rng, (-1, 8, 8, 1))
    images = random.normal(random.PRNGKey(1), (8, 8, 8, 1))
    labels = jax.nn.one_hot(jnp.arange(8) % 10, 10)
    opt_init, opt_update, get_params = optimizers.momentum(0.1, mass=0.9)


    @jit
    def update(i, opt_state, batch):
        return opt_update(i, grad(loss)(get_params(opt_state), batch), opt_state)


    opt_state = opt_init(params)
    print("shape", out_shape)
    for i in range(4):
        opt_state = update(i, opt_state, (images, labels))
        print(f"step {i} loss {float(loss(get_params(opt_state), (images, labels))):.5f}")
    """
)

# The program's output under JAX 0.4.30.
JAX_OUTPUT = """\
shape (0, 10)
step 0 loss 1.95666
step 1 loss 1.58473
step 2 loss 1.27040
step 3 loss 0.94873
"""


def test_unmodified_jax_program_runs_under_numjax(tmp_path: pathlib.Path) -> None:
    prog = tmp_path / "mnist_like.py"
    prog.write_text(JAX_PROGRAM)
    result = subprocess.run(
        [sys.executable, "-m", "numjax", "run", str(prog)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == JAX_OUTPUT
