"""`jax.scipy.spatial.transform`: 3-D rotations stored as unit quaternions (x, y, z, w), and
spherical linear interpolation between them.

Every conversion works on the last axis, so a `Rotation` holds one quaternion (shape (4,)) or
a batch (shape (..., 4)). The formulas are JAX 0.4.30's (SciPy's), in the same order of
operations, so float32 results agree to rounding; like JAX, nothing checks that inputs are
well formed (a (3,) "quaternion" or a non-orthogonal matrix gives a garbage rotation).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from numjax._src.lax.structural import broadcast_shapes
from numjax._src.numpy.creation import array, asarray, ones, zeros, zeros_like
from numjax._src.numpy.einsum import cross as jnp_cross
from numjax._src.numpy.lax_numpy import dot, matmul, where
from numjax._src.numpy.linalg import eigh
from numjax._src.numpy.reductions import argmax
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import atleast_1d, stack, swapaxes
from numjax._src.numpy.shape import concatenate as jnp_concatenate
from numjax._src.numpy.sorting import searchsorted
from numjax._src.numpy.statistics import diff
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import arctan2, cos, deg2rad, hypot, maximum, rad2deg, sin, sqrt
from numjax._src.numpy.util import promote_dtypes_inexact
from numjax._src.tree_util import register_pytree_node
from numjax._src.typing import Array

_AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


def _norm(v: Array) -> Array:
    return sqrt(jnp_sum(v * v, axis=-1))


def _normalize(quat: Array) -> Array:
    return quat / _norm(quat)[..., None]


def _compose(p: Array, q: Array) -> Array:
    """The quaternion product p q: the rotation q followed by p."""
    cross = jnp_cross(p[..., :3], q[..., :3])
    px, py, pz, pw = (p[..., i] for i in range(4))
    qx, qy, qz, qw = (q[..., i] for i in range(4))
    return stack([pw * qx + qw * px + cross[..., 0],
                      pw * qy + qw * py + cross[..., 1],
                      pw * qz + qw * pz + cross[..., 2],
                      pw * qw - px * qx - py * qy - pz * qz], axis=-1)


def _as_matrix(quat: Array) -> Array:
    x, y, z, w = (quat[..., i] for i in range(4))
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    rows = [[xx - yy - zz + ww, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -xx + yy - zz + ww, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -xx - yy + zz + ww]]
    return stack([stack(row, axis=-1) for row in rows], axis=-2)


def _from_matrix(matrix: Array) -> Array:
    """Shepperd's method: build the quaternion from its largest component, chosen by the
    largest of the diagonal entries and the trace, for accuracy."""
    m = [[matrix[..., r, c] for c in range(3)] for r in range(3)]
    trace = m[0][0] + m[1][1] + m[2][2]
    choice = argmax(stack([m[0][0], m[1][1], m[2][2], trace], axis=-1), axis=-1)
    quat = stack([m[2][1] - m[1][2], m[0][2] - m[2][0], m[1][0] - m[0][1], 1 + trace],
                     axis=-1)
    for i in (2, 1, 0):
        j, k = (i + 1) % 3, (i + 2) % 3
        parts = [None, None, None, m[k][j] - m[j][k]]
        parts[i] = 1 - trace + 2 * m[i][i]
        parts[j] = m[j][i] + m[i][j]
        parts[k] = m[k][i] + m[i][k]
        quat = where((choice == i)[..., None], stack(parts, axis=-1), quat)
    return _normalize(quat)


def _as_rotvec(quat: Array, degrees: bool) -> Array:
    quat = where(quat[..., 3:] < 0, -quat, quat)  # w >= 0, so the angle is in [0, pi]
    angle = 2.0 * arctan2(_norm(quat[..., :3]), quat[..., 3])
    angle2 = angle * angle
    # angle / sin(angle / 2) by its Taylor series near 0, where the quotient is 0 / 0.
    series = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
    scale = where(angle <= 1e-3, series, angle / sin(angle / 2))
    if degrees:
        scale = rad2deg(scale)
    return scale[..., None] * quat[..., :3]


def _from_rotvec(rotvec: Array, degrees: bool) -> Array:
    if degrees:
        rotvec = deg2rad(rotvec)
    angle = _norm(rotvec)
    angle2 = angle * angle
    # sin(angle / 2) / angle by its Taylor series near 0.
    series = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
    scale = where(angle <= 1e-3, series, sin(angle / 2) / angle)
    return jnp_concatenate([scale[..., None] * rotvec, cos(angle / 2)[..., None]], axis=-1)


def _as_mrp(quat: Array) -> Array:
    sign = where(quat[..., 3] < 0, -1.0, 1.0)  # the MRP of q or -q with norm <= 1
    denominator = 1.0 + sign * quat[..., 3]
    return sign[..., None] * quat[..., :3] / denominator[..., None]


def _from_mrp(mrp: Array) -> Array:
    norm2_plus_1 = jnp_sum(mrp * mrp, axis=-1)[..., None] + 1
    return jnp_concatenate([2 * mrp[..., :3], 2 - norm2_plus_1], axis=-1) / norm2_plus_1


def _elementary_quat(axis: int, angle: Array) -> Array:
    """The rotation by `angle` about the coordinate axis `axis`."""
    quat = zeros(angle.shape + (4,), dtype=angle.dtype)
    quat = quat.at[..., 3].set(cos(angle / 2.0))
    return quat.at[..., axis].set(sin(angle / 2.0))


def _check_seq(seq: str) -> bool:
    """Whether `seq` is intrinsic (upper case); ValueError unless it is a valid sequence."""
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(a == b for a, b in zip(seq, seq[1:], strict=False)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic


def _as_euler(quat: Array, seq: str, degrees: bool) -> Array:
    """Euler angles from a quaternion directly (Bernardes & Viollet, PLoS ONE 17(11), 2022)."""
    extrinsic = seq.islower()
    i, j, k = (_AXIS_INDEX[a] for a in (seq.lower() if extrinsic else seq.lower()[::-1]))
    symmetric = i == k  # proper Euler angles (e.g. zxz), else Tait-Bryan (e.g. xyz)
    if symmetric:
        k = 3 - i - j
    sign = array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)  # the permutation's
    q = [quat[..., n] for n in range(4)]
    if symmetric:
        a, b, c, d = q[3], q[i], q[j], q[k] * sign
    else:
        a, b, c, d = q[3] - q[j], q[i] + q[k] * sign, q[j] + q[3], q[k] * sign - q[i]
    middle = 2 * arctan2(hypot(c, d), hypot(a, b))
    eps = 1e-7
    # Gimbal lock (middle angle 0 or pi): the first and third angles are not determined
    # separately; the third is set to 0 and the first carries the rotation.
    case = where(jnp_abs(middle - np.pi) <= eps, 2, 0)
    case = where(jnp_abs(middle) <= eps, 1, case)
    half_sum, half_diff = arctan2(b, a), arctan2(d, c)
    locked = where(case == 1, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    zero = zeros_like(middle)
    first, third = (locked, zero) if extrinsic else (zero, locked)
    first = where(case == 0, half_sum - half_diff, first)
    third = where(case == 0, half_sum + half_diff, third)
    if not extrinsic:
        first, third = third, first
    if not symmetric:
        # Tait-Bryan angles come from the proper ones by the sign and a quarter turn.
        if extrinsic:
            third = third * sign
        else:
            first = first * sign
        middle = middle - np.pi / 2
    angles = stack([first, middle, third], axis=-1)
    angles = (angles + np.pi) % (2 * np.pi) - np.pi
    return rad2deg(angles) if degrees else angles


class Rotation(NamedTuple):
    """Rotation(s) in 3 dimensions, held as unit quaternions `quat` (x, y, z, w): JAX's
    version of `scipy.spatial.transform.Rotation`. Build one with the `from_*` constructors.

    >>> r = Rotation.from_euler("z", 90, degrees=True)
    >>> r.as_rotvec()
    Array([0.       , 0.       , 1.5707964], dtype=float32)
    >>> (r * Rotation.from_euler("x", 90, degrees=True)).as_matrix()
    Array([[0., 0., 1.],
           [1., 0., 0.],
           [0., 1., 0.]], dtype=float32)
    """

    quat: Array

    @classmethod
    def concatenate(cls, rotations: Sequence[Rotation]) -> Rotation:
        """The rotations of a sequence of `Rotation`s, joined along the first axis.

        >>> import numjax.numpy as jnp
        >>> a = Rotation.from_rotvec(jnp.array([[0.0, 0.0, 1.0]]))
        >>> b = Rotation.from_rotvec(jnp.array([[0.0, 2.0, 0.0]]))
        >>> Rotation.concatenate([a, b]).magnitude()
        Array([1., 2.], dtype=float32)
        """
        return cls(jnp_concatenate([rotation.quat for rotation in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles: Array, degrees: bool = False) -> Rotation:
        """Rotations about up to 3 axes in turn: `seq` in lower case for axes fixed in space
        (extrinsic), upper case for axes moving with the body (intrinsic); `angles` has one
        entry per axis on its last axis.

        >>> import numjax.numpy as jnp
        >>> Rotation.from_euler("xy", jnp.array([90, 90]), degrees=True).as_matrix().round(5)
        Array([[ 0.,  1.,  0.],
               [ 0.,  0., -1.],
               [-1.,  0.,  0.]], dtype=float32)
        """
        if not 1 <= len(seq) <= 3:
            raise ValueError("Expected axis specification to be a non-empty string of upto 3 "
                             f"characters, got {seq}")
        intrinsic = _check_seq(seq)
        (angles,) = promote_dtypes_inexact(atleast_1d(angles))
        if angles.shape[-1] != len(seq):
            # JAX's text (its vectorize's) for angles that do not match the axes.
            raise ValueError(f"inconsistent size for core dimension 'm': {len(seq)} vs "
                             f"{angles.shape[-1]}: from_euler({seq!r}) takes angles of shape "
                             f"(..., {len(seq)})")
        if degrees:
            angles = deg2rad(angles)
        axes = [_AXIS_INDEX[a] for a in seq.lower()]
        quat = _elementary_quat(axes[0], angles[..., 0])
        for n in range(1, len(seq)):
            step = _elementary_quat(axes[n], angles[..., n])
            quat = _compose(quat, step) if intrinsic else _compose(step, quat)
        return cls(quat)

    @classmethod
    def from_matrix(cls, matrix: Array) -> Rotation:
        """From rotation matrices (..., 3, 3).

        >>> import numjax.numpy as jnp
        >>> Rotation.from_matrix(jnp.diag(jnp.array([1.0, -1.0, -1.0]))).quat
        Array([1., 0., 0., 0.], dtype=float32)
        """
        return cls(_from_matrix(asarray(matrix)))

    @classmethod
    def from_mrp(cls, mrp: Array) -> Rotation:
        """From Modified Rodrigues Parameters (..., 3): axis * tan(angle / 4).

        >>> import numjax.numpy as jnp
        >>> Rotation.from_mrp(jnp.array([0.0, 0.0, 1.0])).as_rotvec()
        Array([0.       , 0.       , 3.1415927], dtype=float32)
        """
        return cls(_from_mrp(asarray(mrp)))

    @classmethod
    def from_quat(cls, quat: Array) -> Rotation:
        """From quaternions (..., 4) in (x, y, z, w) order, normalized.

        >>> import numjax.numpy as jnp
        >>> Rotation.from_quat(jnp.array([0.0, 0.0, 0.0, 2.0])).quat
        Array([0., 0., 0., 1.], dtype=float32)
        """
        return cls(_normalize(asarray(quat)))

    @classmethod
    def from_rotvec(cls, rotvec: Array, degrees: bool = False) -> Rotation:
        """From rotation vectors (..., 3): axis * angle.

        >>> import numjax.numpy as jnp
        >>> Rotation.from_rotvec(jnp.array([0.0, 180.0, 0.0]), degrees=True).quat
        Array([ 0.000000e+00,  1.000000e+00,  0.000000e+00, -4.371139e-08], dtype=float32)
        """
        return cls(_from_rotvec(promote_dtypes_inexact(asarray(rotvec))[0], degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype: Any = float) -> Rotation:
        """The identity rotation (JAX supports only `num=None`, one rotation).

        >>> Rotation.identity().quat
        Array([0., 0., 0., 1.], dtype=float32)
        """
        if num is not None:
            # JAX asserts num is None; its error type is kept.
            raise AssertionError(f"Rotation.identity supports only num=None, got num={num}")
        return cls(array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key: Array, num: int | None = None) -> Rotation:
        """Not implemented in JAX 0.4.30 (it needs scipy.stats.special_ortho_group)."""
        raise NotImplementedError()

    def __getitem__(self, indexer: Any) -> Rotation:  # type: ignore[override]
        """The rotation(s) at `indexer` of a batch."""
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self) -> int:
        """The number of rotations in a batch."""
        if self.single:
            raise TypeError("Single rotation has no len().")
        return int(self.quat.shape[0])

    def __mul__(self, other: Rotation) -> Rotation:  # type: ignore[override]
        """The composition: `other` first, then `self`."""
        return Rotation.from_quat(_compose(self.quat, other.quat))

    def apply(self, vectors: Array, inverse: bool = False) -> Array:
        """Rotate `vectors` (..., 3) (by the inverse rotation if `inverse`); the batch axes of
        the rotations and of the vectors broadcast.

        >>> import numjax.numpy as jnp
        >>> Rotation.from_euler("z", 90, degrees=True).apply(jnp.array([1.0, 0.0, 0.0]))
        Array([0.        , 0.99999994, 0.        ], dtype=float32)
        """
        matrix = self.as_matrix()
        vectors = asarray(vectors)
        if vectors.ndim == 0 or vectors.shape[-1] != 3:
            raise ValueError(f"inconsistent size for core dimension 'm': "
                             f"{vectors.shape[-1] if vectors.ndim else None} vs 3: apply takes "
                             f"vectors of shape (..., 3), got {vectors.shape}")
        broadcast_shapes(matrix.shape[:-2], vectors.shape[:-1])
        if inverse:
            matrix = swapaxes(matrix, -1, -2)
        return matmul(matrix, vectors[..., None])[..., 0]

    def as_euler(self, seq: str, degrees: bool = False) -> Array:
        """Euler angles (..., 3) for the 3-axis sequence `seq` (see `from_euler`), in
        [-pi, pi]; at gimbal lock the third angle is 0.

        >>> import numjax.numpy as jnp
        >>> angles = jnp.array([0.1, 0.2, 0.3])
        >>> jnp.allclose(Rotation.from_euler("xyz", angles).as_euler("xyz"), angles)
        Array(True, dtype=bool)
        """
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        _check_seq(seq)
        return _as_euler(self.quat, seq, degrees)

    def as_matrix(self) -> Array:
        """Rotation matrices (..., 3, 3)."""
        return _as_matrix(self.quat)

    def as_mrp(self) -> Array:
        """Modified Rodrigues Parameters (..., 3), of norm at most 1."""
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False) -> Array:
        """Rotation vectors (..., 3), of norm (the angle) at most pi (180 degrees)."""
        return _as_rotvec(self.quat, degrees)

    def as_quat(self) -> Array:
        """The quaternions (..., 4) in (x, y, z, w) order."""
        return self.quat

    def inv(self) -> Rotation:
        """The inverse rotation(s)."""
        return Rotation(jnp_concatenate([self.quat[..., :3], -self.quat[..., 3:]], axis=-1))

    def magnitude(self) -> Array:
        """The rotation angle(s), in [0, pi].

        >>> import numjax.numpy as jnp
        >>> Rotation.from_rotvec(jnp.array([0.0, 0.0, 2.0])).magnitude()
        Array(2., dtype=float32)
        """
        return 2.0 * arctan2(_norm(self.quat[..., :3]), jnp_abs(self.quat[..., 3]))

    def mean(self, weights: Array | None = None) -> Rotation:
        """The (weighted) mean rotation of a batch: the eigenvector of largest eigenvalue of
        sum_i w_i q_i q_i^T (Markley et al., J. Guidance 30(4), 2007), up to sign.

        >>> import numjax.numpy as jnp
        >>> r = Rotation.from_rotvec(jnp.array([[0.0, 0.0, 0.2], [0.0, 0.0, 0.4]]))
        >>> jnp.allclose(r.mean().magnitude(), 0.3)
        Array(True, dtype=bool)
        """
        if weights is None:
            w = ones(self.quat.shape[0], dtype=self.quat.dtype)
        else:
            w = asarray(weights, dtype=self.quat.dtype)
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number of "
                             f"rotations, got {w.shape[0]} values and {len(self)} rotations.")
        outer_sum = dot(w[None, :] * self.quat.T, self.quat)
        _, vectors = eigh(outer_sum)
        return Rotation(vectors[:, -1])

    @property
    def single(self) -> bool:
        """Whether this holds one rotation rather than a batch."""
        return bool(self.quat.ndim == 1)


class Slerp(NamedTuple):
    """Spherical linear interpolation between key rotations at increasing key times: JAX's
    version of `scipy.spatial.transform.Slerp`. Build it with `Slerp.init`.

    >>> import numjax.numpy as jnp
    >>> keys = Rotation.from_euler("z", jnp.array([[0.0], [90.0]]), degrees=True)
    >>> slerp = Slerp.init(jnp.array([0.0, 1.0]), keys)
    >>> slerp(0.5).as_rotvec(degrees=True)
    Array([ 0.      ,  0.      , 45.000004], dtype=float32)
    """

    times: Array
    timedelta: Array
    rotations: Rotation
    rotvecs: Array

    @classmethod
    def init(cls, times: Array, rotations: Rotation) -> Slerp:
        """The interpolator through `rotations` (a batch of at least 2) at `times` (1-D,
        increasing: like JAX, the order is not checked)."""
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError("Expected times to be specified in a 1 dimensional array, got "
                             f"{times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of timestamps "
                             f"given, got {len(rotations)} rotations and {times.shape[0]} "
                             "timestamps.")
        starts = Rotation(rotations.quat[:-1])
        # Each interval turns at a constant rate about one axis: the rotation vector of
        # start^-1 end.
        steps = (starts.inv() * Rotation(rotations.quat[1:])).as_rotvec()
        return cls(times=times, timedelta=diff(times), rotations=starts, rotvecs=steps)

    def __call__(self, times: Array) -> Rotation:
        """The interpolated rotation(s) at `times` (a scalar or 1-D); times outside the key
        times extrapolate the first or last interval."""
        times = asarray(times, dtype=self.times.dtype)
        if times.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = times.ndim == 0
        times = atleast_1d(times)
        interval = maximum(searchsorted(self.times, times) - 1, 0)
        fraction = (times - self.times[interval]) / self.timedelta[interval]
        result = self.rotations[interval] * Rotation.from_rotvec(
            self.rotvecs[interval] * fraction[:, None])
        return result[0] if single else result


# Registered explicitly, since the generic namedtuple handling takes len() of a node, which a
# Rotation overrides (and refuses for a single rotation).
register_pytree_node(Rotation, lambda r: ((r.quat,), None), lambda _, c: Rotation(*c))
register_pytree_node(Slerp, lambda s: (tuple.__iter__(s), None), lambda _, c: Slerp(*c))
