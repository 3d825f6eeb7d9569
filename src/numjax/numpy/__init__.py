"""numjax.numpy: the NumPy API on numjax arrays (JAX's `jax.numpy`)."""

import numpy as _np

from numjax._src.dtypes import finfo as finfo
from numjax._src.dtypes import iinfo as iinfo
from numjax._src.dtypes import issubdtype as issubdtype
from numjax._src.dtypes import promote_types as promote_types
from numjax._src.dtypes import result_type as result_type
from numjax._src.numpy import array_methods as _array_methods
from numjax._src.numpy.advanced_indexing import argwhere as argwhere
from numjax._src.numpy.advanced_indexing import flatnonzero as flatnonzero
from numjax._src.numpy.advanced_indexing import nonzero as nonzero
from numjax._src.numpy.creation import arange as arange
from numjax._src.numpy.creation import array as array
from numjax._src.numpy.creation import asarray as asarray
from numjax._src.numpy.creation import empty as empty
from numjax._src.numpy.creation import empty_like as empty_like
from numjax._src.numpy.creation import eye as eye
from numjax._src.numpy.creation import full as full
from numjax._src.numpy.creation import full_like as full_like
from numjax._src.numpy.creation import identity as identity
from numjax._src.numpy.creation import linspace as linspace
from numjax._src.numpy.creation import ones as ones
from numjax._src.numpy.creation import ones_like as ones_like
from numjax._src.numpy.creation import zeros as zeros
from numjax._src.numpy.creation import zeros_like as zeros_like
from numjax._src.numpy.lax_numpy import clip as clip
from numjax._src.numpy.lax_numpy import dot as dot
from numjax._src.numpy.lax_numpy import inner as inner
from numjax._src.numpy.lax_numpy import matmul as matmul
from numjax._src.numpy.lax_numpy import outer as outer
from numjax._src.numpy.lax_numpy import vdot as vdot
from numjax._src.numpy.lax_numpy import where as where
from numjax._src.numpy.reductions import all as all
from numjax._src.numpy.reductions import amax as amax
from numjax._src.numpy.reductions import amin as amin
from numjax._src.numpy.reductions import any as any
from numjax._src.numpy.reductions import argmax as argmax
from numjax._src.numpy.reductions import argmin as argmin
from numjax._src.numpy.reductions import max as max
from numjax._src.numpy.reductions import mean as mean
from numjax._src.numpy.reductions import min as min
from numjax._src.numpy.reductions import prod as prod
from numjax._src.numpy.reductions import std as std
from numjax._src.numpy.reductions import sum as sum
from numjax._src.numpy.reductions import var as var
from numjax._src.numpy.scalar_types import bfloat16 as bfloat16
from numjax._src.numpy.scalar_types import bool_ as bool_
from numjax._src.numpy.scalar_types import cdouble as cdouble
from numjax._src.numpy.scalar_types import complex64 as complex64
from numjax._src.numpy.scalar_types import complex128 as complex128
from numjax._src.numpy.scalar_types import complex_ as complex_
from numjax._src.numpy.scalar_types import csingle as csingle
from numjax._src.numpy.scalar_types import double as double
from numjax._src.numpy.scalar_types import float8_e4m3b11fnuz as float8_e4m3b11fnuz
from numjax._src.numpy.scalar_types import float8_e4m3fn as float8_e4m3fn
from numjax._src.numpy.scalar_types import float8_e4m3fnuz as float8_e4m3fnuz
from numjax._src.numpy.scalar_types import float8_e5m2 as float8_e5m2
from numjax._src.numpy.scalar_types import float8_e5m2fnuz as float8_e5m2fnuz
from numjax._src.numpy.scalar_types import float16 as float16
from numjax._src.numpy.scalar_types import float32 as float32
from numjax._src.numpy.scalar_types import float64 as float64
from numjax._src.numpy.scalar_types import float_ as float_
from numjax._src.numpy.scalar_types import half as half
from numjax._src.numpy.scalar_types import int4 as int4
from numjax._src.numpy.scalar_types import int8 as int8
from numjax._src.numpy.scalar_types import int16 as int16
from numjax._src.numpy.scalar_types import int32 as int32
from numjax._src.numpy.scalar_types import int64 as int64
from numjax._src.numpy.scalar_types import int_ as int_
from numjax._src.numpy.scalar_types import single as single
from numjax._src.numpy.scalar_types import uint as uint
from numjax._src.numpy.scalar_types import uint4 as uint4
from numjax._src.numpy.scalar_types import uint8 as uint8
from numjax._src.numpy.scalar_types import uint16 as uint16
from numjax._src.numpy.scalar_types import uint32 as uint32
from numjax._src.numpy.scalar_types import uint64 as uint64
from numjax._src.numpy.shape import atleast_1d as atleast_1d
from numjax._src.numpy.shape import atleast_2d as atleast_2d
from numjax._src.numpy.shape import atleast_3d as atleast_3d
from numjax._src.numpy.shape import broadcast_arrays as broadcast_arrays
from numjax._src.numpy.shape import broadcast_shapes as broadcast_shapes
from numjax._src.numpy.shape import broadcast_to as broadcast_to
from numjax._src.numpy.shape import concatenate as concatenate
from numjax._src.numpy.shape import dstack as dstack
from numjax._src.numpy.shape import expand_dims as expand_dims
from numjax._src.numpy.shape import flip as flip
from numjax._src.numpy.shape import hstack as hstack
from numjax._src.numpy.shape import moveaxis as moveaxis
from numjax._src.numpy.shape import ndim as ndim
from numjax._src.numpy.shape import permute_dims as permute_dims
from numjax._src.numpy.shape import ravel as ravel
from numjax._src.numpy.shape import reshape as reshape
from numjax._src.numpy.shape import shape as shape
from numjax._src.numpy.shape import size as size
from numjax._src.numpy.shape import squeeze as squeeze
from numjax._src.numpy.shape import stack as stack
from numjax._src.numpy.shape import swapaxes as swapaxes
from numjax._src.numpy.shape import transpose as transpose
from numjax._src.numpy.shape import vstack as vstack
from numjax._src.numpy.ufuncs import abs as abs
from numjax._src.numpy.ufuncs import absolute as absolute
from numjax._src.numpy.ufuncs import acos as acos
from numjax._src.numpy.ufuncs import acosh as acosh
from numjax._src.numpy.ufuncs import add as add
from numjax._src.numpy.ufuncs import arccos as arccos
from numjax._src.numpy.ufuncs import arccosh as arccosh
from numjax._src.numpy.ufuncs import arcsin as arcsin
from numjax._src.numpy.ufuncs import arcsinh as arcsinh
from numjax._src.numpy.ufuncs import arctan as arctan
from numjax._src.numpy.ufuncs import arctan2 as arctan2
from numjax._src.numpy.ufuncs import arctanh as arctanh
from numjax._src.numpy.ufuncs import asin as asin
from numjax._src.numpy.ufuncs import asinh as asinh
from numjax._src.numpy.ufuncs import atan as atan
from numjax._src.numpy.ufuncs import atan2 as atan2
from numjax._src.numpy.ufuncs import atanh as atanh
from numjax._src.numpy.ufuncs import bitwise_and as bitwise_and
from numjax._src.numpy.ufuncs import bitwise_invert as bitwise_invert
from numjax._src.numpy.ufuncs import bitwise_not as bitwise_not
from numjax._src.numpy.ufuncs import bitwise_or as bitwise_or
from numjax._src.numpy.ufuncs import bitwise_xor as bitwise_xor
from numjax._src.numpy.ufuncs import cbrt as cbrt
from numjax._src.numpy.ufuncs import ceil as ceil
from numjax._src.numpy.ufuncs import copysign as copysign
from numjax._src.numpy.ufuncs import cos as cos
from numjax._src.numpy.ufuncs import cosh as cosh
from numjax._src.numpy.ufuncs import deg2rad as deg2rad
from numjax._src.numpy.ufuncs import degrees as degrees
from numjax._src.numpy.ufuncs import divide as divide
from numjax._src.numpy.ufuncs import equal as equal
from numjax._src.numpy.ufuncs import exp as exp
from numjax._src.numpy.ufuncs import exp2 as exp2
from numjax._src.numpy.ufuncs import expm1 as expm1
from numjax._src.numpy.ufuncs import fabs as fabs
from numjax._src.numpy.ufuncs import floor as floor
from numjax._src.numpy.ufuncs import floor_divide as floor_divide
from numjax._src.numpy.ufuncs import fmod as fmod
from numjax._src.numpy.ufuncs import greater as greater
from numjax._src.numpy.ufuncs import greater_equal as greater_equal
from numjax._src.numpy.ufuncs import hypot as hypot
from numjax._src.numpy.ufuncs import invert as invert
from numjax._src.numpy.ufuncs import isfinite as isfinite
from numjax._src.numpy.ufuncs import isinf as isinf
from numjax._src.numpy.ufuncs import isnan as isnan
from numjax._src.numpy.ufuncs import left_shift as left_shift
from numjax._src.numpy.ufuncs import less as less
from numjax._src.numpy.ufuncs import less_equal as less_equal
from numjax._src.numpy.ufuncs import log as log
from numjax._src.numpy.ufuncs import log1p as log1p
from numjax._src.numpy.ufuncs import log2 as log2
from numjax._src.numpy.ufuncs import log10 as log10
from numjax._src.numpy.ufuncs import logaddexp as logaddexp
from numjax._src.numpy.ufuncs import logical_and as logical_and
from numjax._src.numpy.ufuncs import logical_not as logical_not
from numjax._src.numpy.ufuncs import logical_or as logical_or
from numjax._src.numpy.ufuncs import logical_xor as logical_xor
from numjax._src.numpy.ufuncs import maximum as maximum
from numjax._src.numpy.ufuncs import minimum as minimum
from numjax._src.numpy.ufuncs import mod as mod
from numjax._src.numpy.ufuncs import multiply as multiply
from numjax._src.numpy.ufuncs import negative as negative
from numjax._src.numpy.ufuncs import nextafter as nextafter
from numjax._src.numpy.ufuncs import not_equal as not_equal
from numjax._src.numpy.ufuncs import positive as positive
from numjax._src.numpy.ufuncs import pow as pow
from numjax._src.numpy.ufuncs import power as power
from numjax._src.numpy.ufuncs import rad2deg as rad2deg
from numjax._src.numpy.ufuncs import radians as radians
from numjax._src.numpy.ufuncs import reciprocal as reciprocal
from numjax._src.numpy.ufuncs import remainder as remainder
from numjax._src.numpy.ufuncs import right_shift as right_shift
from numjax._src.numpy.ufuncs import rint as rint
from numjax._src.numpy.ufuncs import sign as sign
from numjax._src.numpy.ufuncs import signbit as signbit
from numjax._src.numpy.ufuncs import sin as sin
from numjax._src.numpy.ufuncs import sinh as sinh
from numjax._src.numpy.ufuncs import sqrt as sqrt
from numjax._src.numpy.ufuncs import square as square
from numjax._src.numpy.ufuncs import subtract as subtract
from numjax._src.numpy.ufuncs import tan as tan
from numjax._src.numpy.ufuncs import tanh as tanh
from numjax._src.numpy.ufuncs import true_divide as true_divide
from numjax._src.numpy.ufuncs import trunc as trunc
from numjax._src.runtime.array import Array as ndarray

dtype = _np.dtype
newaxis = None
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
number = _np.number
inexact = _np.inexact
floating = _np.floating
complexfloating = _np.complexfloating
integer = _np.integer
signedinteger = _np.signedinteger
unsignedinteger = _np.unsignedinteger
generic = _np.generic
character = _np.character
flexible = _np.flexible
