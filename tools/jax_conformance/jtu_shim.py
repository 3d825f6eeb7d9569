# ---- jtu_shim.py: appended by run_suite.py to the ported copy of JAX's jax/_src/test_util.py ----
# (the concatenation is the generated `jtu_gen.py`). port.py has already pointed the internal
# imports of test_util.py at internal_shim; the definitions below replace the few helpers that
# cannot work through public API, so that they behave the same whichever package is `jax`.
# Uses only names defined above in the generated module (config, contextmanager, unittest, ...),
# which a linter cannot see in this fragment alone.
# ruff: noqa: F821

# Config names in JaxTestCase._default_config (and with_config) that the package under test does
# not know: tolerated (recorded here) instead of failing every test class in setUpClass.
UNKNOWN_CONFIG = set()


@contextmanager
def global_config_context(**kwds):
    original_config = {}
    try:
        for key, value in kwds.items():
            try:
                original_config[key] = config._read(key)
            except AttributeError:
                UNKNOWN_CONFIG.add(key)
                continue
            config.update(key, value)
        yield
    finally:
        for key, value in original_config.items():
            config.update(key, value)


# Compile/transfer counters read XLA/pjit internals: a test that needs one is skipped (on both
# sides).
def _internal_counter(name):
    @contextmanager
    def counter(*args, **kwargs):
        raise unittest.SkipTest(f"jtu.{name} reads JAX internals")
        yield  # pragma: no cover

    counter.__name__ = name
    return counter


for _name in (
    "count_device_put",
    "count_primitive_compiles",
    "count_device_put_fast_path_hit",
    "count_pjit_cpp_cache_miss",
    "count_cached_compilation_cache_miss",
    "count_jit_tracing_cache_miss",
    "count_aot_jit_cpp_cache_miss",
    "count_jit_and_pmap_compiles",
    "count_subjaxpr_to_hlo_conversion",
    "assert_num_jit_and_pmap_compilations",
    "register_event_duration_listener",
):
    globals()[_name] = _internal_counter(_name)
del _name


def device_under_test():
    return _TEST_DUT.value or jax.default_backend()


def supported_dtypes():
    types = {
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        _dtypes.bfloat16,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    }
    if not jax.config.jax_enable_x64:
        types -= {np.uint64, np.int64, np.float64, np.complex128}
    return types
