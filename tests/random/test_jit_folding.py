"""Samplers under jit with constant parameters, against JAX 0.4.30's recorded draws.

Inside an outer jit a Python-scalar parameter is a compile-time constant, and XLA folds the
operations on it (erf of truncated_normal's bounds through an accurate erf) and turns divisions
by it into products with its reciprocal (f, pareto), so JAX's jitted draws differ from its
eager ones in the last bits (the last field of each row: how many of the 35 draws differ).
Each row: (call, seed, JAX's jitted float32 draws as bits, eager/jit differences in JAX).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
from numjax import random

ROWS: list[tuple[str, int, list[int], int]] = [
    (
        "truncated_normal(-1.5, 2.0)",
        -1,
        [
            1073306124,
            3209071200,
            1060891981,
            3164517422,
            1048224221,
            1057444368,
            1036750606,
            3211710335,
            3155127236,
            1056795264,
            1059628122,
            3187345834,
            3216417202,
            1041957704,
            1065803346,
            3206203932,
            1057528537,
            3202085802,
            1069439456,
            3176376814,
            3215815253,
            1048669751,
            1066315756,
            1057315497,
            1057983310,
            3213366881,
            3186628227,
            3214151800,
            975284635,
            3200978927,
            3181081260,
            3177267058,
            1069385112,
            1052014895,
            1051965262,
        ],
        25,
    ),
    (
        "truncated_normal(-d / 10, 0.7)",
        5,
        [
            3194292059,
            1013941513,
            1032311017,
            3193261674,
            1050446272,
            1043003821,
            1049473643,
            1057633076,
            3190593658,
            3198952591,
            1049748316,
            3172506308,
            1055709540,
            1049926643,
            1054352552,
            3196215776,
            1043114513,
            1057756509,
            1052346620,
            3199208900,
            1051745944,
            1052930437,
            1060040020,
            3197730531,
            1051022504,
            1051908811,
            3189236204,
            1058756427,
            3171221276,
            1039938971,
            1050677286,
            3191102443,
            1053976667,
            1057673120,
            3186083794,
        ],
        0,
    ),
    (
        "f(3.0, 4.0)",
        1,
        [
            1046465061,
            1071947683,
            1098942443,
            1072302032,
            1060715241,
            1067646633,
            1052735890,
            1041600969,
            1058298838,
            1091968895,
            1077382393,
            1078706520,
            1063264971,
            1035803251,
            1073324647,
            1075319279,
            1084188311,
            1091255770,
            1057489370,
            1074431812,
            1068147826,
            1058297596,
            1067509473,
            1063166211,
            1078050541,
            1052104279,
            1060146214,
            1054129770,
            1074398193,
            1076970237,
            1082782020,
            1052256363,
            1071955903,
            1070911616,
            1048786928,
        ],
        16,
    ),
    (
        "f(3.0, d)",
        1,
        [
            1046023186,
            1075182422,
            1100949252,
            1073164877,
            1061176611,
            1067363186,
            1052830008,
            1040991398,
            1057855604,
            1094458789,
            1077886949,
            1079524224,
            1063762795,
            1035236242,
            1074574890,
            1076890806,
            1085542257,
            1092807161,
            1057958726,
            1075175957,
            1068591646,
            1058168574,
            1067301415,
            1063677510,
            1079845786,
            1053259032,
            1060241955,
            1053816979,
            1075709008,
            1079372806,
            1083417123,
            1052095905,
            1071805457,
            1071262851,
            1048639077,
        ],
        25,
    ),
    (
        "f(d, 5.0)",
        5,
        [
            1049177521,
            1061737879,
            1058500015,
            1075988013,
            1057391117,
            1073864246,
            1080914539,
            1068052580,
            1045622398,
            1066179838,
            1046906580,
            1065976508,
            1091288619,
            1064722854,
            1046885377,
            1047371192,
            1039551659,
            1070652517,
            1070479724,
            1044551226,
            1052613852,
            1057533888,
            1039266309,
            1080891139,
            1069785099,
            1060154518,
            1056898128,
            1064872909,
            1080091351,
            1073336600,
            1062965809,
            1070751685,
            1064354282,
            1081679803,
            1064990126,
        ],
        18,
    ),
    (
        "pareto(3.0)",
        1,
        [
            1074826978,
            1067408341,
            1068581460,
            1065579807,
            1067850376,
            1066111176,
            1083626748,
            1066955210,
            1067884629,
            1069208532,
            1066020713,
            1065360339,
            1065377724,
            1066863887,
            1067007891,
            1075415032,
            1066130343,
            1073241312,
            1065840900,
            1066753192,
            1072975147,
            1071086544,
            1065593525,
            1067545583,
            1065931722,
            1065577000,
            1065430035,
            1065402355,
            1067873128,
            1065486475,
            1078665257,
            1065582193,
            1068945130,
            1067100879,
            1065572290,
        ],
        3,
    ),
]

CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "truncated_normal(-1.5, 2.0)": lambda k, d: random.truncated_normal(k, -1.5, 2.0, (7, 5)),
    "truncated_normal(-d / 10, 0.7)": lambda k, d: random.truncated_normal(k, -d / 10, 0.7, (7, 5)),
    "f(3.0, 4.0)": lambda k, d: random.f(k, 3.0, 4.0, (7, 5)),
    "f(3.0, d)": lambda k, d: random.f(k, 3.0, d, (7, 5)),
    "f(d, 5.0)": lambda k, d: random.f(k, d, 5.0, (7, 5)),
    "pareto(3.0)": lambda k, d: random.pareto(k, 3.0, (7, 5)),
}


@pytest.mark.parametrize("call,seed,bits,eager_differs", ROWS, ids=[r[0] for r in ROWS])
def test_jit_with_constant_parameters_matches_jax(
    call: str, seed: int, bits: list[int], eager_differs: int
) -> None:
    key = random.PRNGKey(seed)
    fn = CALLS[call]
    jitted = np.asarray(numjax.jit(fn)(key, 3.5))
    np.testing.assert_array_equal(jitted.view(np.uint32).ravel(), np.array(bits, np.uint32))
    # The eager draws keep the runtime rounding, so they differ from the jitted ones as JAX's.
    eager = np.asarray(fn(key, 3.5))
    assert int((eager != jitted).sum()) == eager_differs


# randint(key, (), -2**40, 2**40, int64) under x64 for seeds 0..5 (eager), and with bounds
# +-2**62 under jit: JAX 0.4.30's draws. Shape () once went through a float64 remainder.
RANDINT64_EAGER = [817328721294, -118521991014, -522356173394, -205106783707, -147311517616,
                   800928274778]
RANDINT64_JIT = [-3199572521941299826, -744168279898460006, 3255467590023468462,
                 -4226915427928843739, -344948830782054320, 2929786972090898778]


def test_scalar_int64_randint_matches_jax() -> None:
    from numjax._src.config import enable_x64

    with enable_x64(True):
        eager = [int(random.randint(random.PRNGKey(s), (), -2**40, 2**40, np.int64))
                 for s in range(6)]
        draw = numjax.jit(lambda k: random.randint(k, (), -2**62, 2**62, np.int64))
        jitted = [int(draw(random.PRNGKey(s))) for s in range(6)]
    assert eager == RANDINT64_EAGER
    assert jitted == RANDINT64_JIT


def test_rademacher_under_x64_draws_a_float64_uniform() -> None:
    # JAX's rademacher is bernoulli(key, 0.5): with x64 the Python float's dtype is float64, so
    # its uniform takes 64 bits per draw. JAX 0.4.30's draws for PRNGKey(3):
    signs = [-1, 1, 1, -1, -1, 1, 1, 1, -1, -1, -1, 1, 1, -1, -1, -1, -1, 1, -1, 1, -1, 1, 1, -1]
    maxwell_bits = [3224961424, 3213438357, 3227287313, 3229844407, 3223511452, 3230738782,
                    3221115798, 3219970562]
    from numjax._src.config import enable_x64

    with enable_x64(True):
        out = random.rademacher(random.PRNGKey(3), (24,), np.int32)
        dsm = random.double_sided_maxwell(random.PRNGKey(3), 0.5, 2.0, (8,), np.float32)
    assert np.asarray(out).tolist() == signs
    np.testing.assert_array_equal(np.asarray(dsm).view(np.uint32), np.array(maxwell_bits,
                                                                            np.uint32))
