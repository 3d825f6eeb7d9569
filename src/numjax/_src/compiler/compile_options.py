"""The compile options `Lowered.compile(compiler_options=...)` accepts: XLA's, as JAX 0.4.30
checks them, though numjax's compiler reads none of them.

An unknown name, or a value XLA would not parse for its option's type, raises JAX's
XlaRuntimeError, so a program that runs under numjax also compiles under JAX.
"""

from __future__ import annotations

from typing import Any

from numjax._src.core.errors import XlaRuntimeError

# The fields of XLA's DebugOptions in jaxlib 0.4.30 (the option names without their `xla_`
# prefix), by the type XLA parses a value as.
_NAMES_BY_TYPE = {
    "bool": """
        hlo_graph_addresses hlo_profile disable_all_hlo_passes embed_ir_in_executable
        eliminate_hlo_implicit_broadcast cpu_multi_thread_eigen gpu_ftz
        llvm_enable_alias_scope_metadata llvm_enable_noalias_metadata
        llvm_enable_invariant_load_metadata llvm_disable_expensive_passes test_all_output_layouts
        test_all_input_layouts hlo_graph_sharding_color cpu_use_mkl_dnn cpu_use_thunk_runtime
        cpu_enable_concurrency_optimized_scheduler cpu_enable_fast_math cpu_fast_math_honor_nans
        cpu_fast_math_honor_infs cpu_fast_math_honor_division cpu_fast_math_honor_functions
        cpu_enable_fast_min_max gpu_enable_fast_min_max allow_excess_precision
        gpu_crash_on_verification_failures gpu_disable_gpuasm_optimizations
        hlo_evaluator_use_fast_path allow_scalar_index_dynamic_ops dump_hlo_as_text
        dump_hlo_as_proto dump_hlo_as_dot dump_hlo_as_url dump_hlo_as_html
        dump_fusion_visualization dump_hlo_snapshots dump_include_timestamp dump_module_metadata
        dump_compress_protos dump_hlo_as_long_text gpu_force_conv_nchw gpu_force_conv_nhwc
        gpu_dump_llvmir dump_enable_mlir_pretty_form tpu_detect_nan tpu_detect_inf
        cpu_enable_xprof_traceme gpu_unsafe_fallback_to_driver_on_ptxas_not_found detailed_logging
        enable_dumping gpu_enable_llvm_module_compilation_parallelism gpu_deterministic_ops
        gpu_enable_all_gather_combine_by_dim gpu_enable_reduce_scatter_combine_by_dim
        gpu_enable_all_reduce_splitter gpu_enable_reassociation_for_converted_ar
        gpu_enable_while_loop_reduce_scatter_code_motion llvm_force_inline_before_split
        gpu_enable_cudnn_frontend gpu_enable_cudnn_fmha gpu_fused_attention_use_cudnn_rng
        gpu_enable_cudnn_layer_norm dump_disable_metadata gpu_strict_conv_algorithm_picker
        gpu_enable_custom_fusions gpu_enable_address_computation_fusion
        gpu_enable_shared_constants gpu_enable_cublaslt gpu_graph_enable_concurrent_region
        cpu_use_acl cpu_strict_dot_conv_math gpu_use_runtime_fusion dump_latency_hiding_schedule
        cpu_enable_mlir_tiling_and_fusion cpu_enable_custom_matmul_tiling
        cpu_enable_mlir_fusion_outlining cpu_enable_experimental_deallocation
        gpu_enable_latency_hiding_scheduler gpu_enable_highest_priority_async_stream
        gpu_enable_analytical_latency_estimator gpu_lhs_enable_gpu_async_tracker
        gpu_enable_pipelined_collectives gpu_enable_pipelined_all_reduce
        gpu_enable_pipelined_all_gather gpu_enable_pipelined_reduce_scatter
        gpu_enable_pipelined_p2p gpu_enable_triton_gemm
        gpu_enable_cudnn_int8x32_convolution_reordering gpu_triton_gemm_any
        gpu_exhaustive_tiling_search gpu_enable_triton_softmax_fusion gpu_enable_priority_fusion
        gpu_enable_triton_softmax_priority_fusion
        gpu_triton_gemm_disable_reduced_precision_reduction gpu_dump_autotuned_gemm_fusions
        gpu_copy_insertion_use_region_analysis gpu_collect_cost_model_stats
        gpu_enable_split_k_autotuning gpu_enable_reduction_epilogue_fusion
        gpu_enable_nccl_clique_optimization gpu_mock_custom_calls gpu_cublas_fallback
        gpu_enable_while_loop_double_buffering gpu_ensure_minor_dot_contraction_dims
        gpu_filter_kernels_spilling_registers_on_autotuning gpu_enable_cub_radix_sort
        gpu_enable_triton_hopper gpu_enable_nccl_user_buffers gpu_enable_nccl_comm_splitting
        gpu_enable_nccl_per_stream_comms gpu_enable_libnvptxcompiler
        gpu_enable_dot_strength_reduction gpu_multi_streamed_windowed_einsum
        gpu_enable_bf16_6way_gemm gpu_enable_bf16_3way_gemm
        gpu_require_complete_aot_autotune_results gpu_use_memcpy_local_p2p dump_large_constants
        gpu_verify_triton_fusion_numerics gpu_enable_host_memory_offloading
        gpu_exclude_nondeterministic_ops gpu_nccl_terminate_on_error use_shardonnay
        gpu_shard_autotuning gpu_enable_approx_costly_collectives
        gpu_unsafe_pipelined_loop_annotator
    """,
    "string": """
        disable_hlo_passes enable_hlo_passes_only gpu_cuda_data_dir dump_to dump_hlo_module_re
        dump_hlo_pass_re gpu_ptx_file gpu_algorithm_denylist_path gpu_asm_extra_flags
        gpu_llvm_ir_file dump_hlo_pipeline_re gpu_enable_custom_fusions_re
        gpu_pgle_profile_file_or_directory_path gpu_dump_autotune_results_to
        gpu_load_autotune_results_from gpu_target_config_filename gpu_override_gemm_autotuner
        gpu_dump_autotune_logs_to gpu_kernel_cache_file
    """,
    "int32": """
        backend_optimization_level cpu_prefer_vector_width gpu_autotune_level
        force_host_platform_device_count dump_max_hlo_modules multiheap_size_constraint_per_heap
        gpu_force_compilation_parallelism gpu_all_reduce_blueconnect_num_devices_per_host
        gpu_collective_inflation_factor gpu_graph_min_graph_size gpu_memory_limit_slop_factor
        gpu_auto_spmd_partitioning_memory_budget_gb gpu_triton_fusion_level
        gpu_llvm_verification_level gpu_cudnn_gemm_fusion_level
    """,
    "enum": """
        gpu_shape_checks step_marker_location gpu_disable_async_collectives
        gpu_enable_command_buffer partitioning_algorithm gpu_enable_while_loop_unrolling
    """,
    "int64": """
        gpu_all_reduce_combine_threshold_bytes gpu_all_gather_combine_threshold_bytes
        gpu_reduce_scatter_combine_threshold_bytes gpu_nccl_termination_timeout_seconds
        gpu_redzone_scratch_max_megabytes gpu_redzone_padding_bytes cpu_matmul_tiling_m_dim
        cpu_matmul_tiling_n_dim cpu_matmul_tiling_k_dim
        gpu_collective_permute_decomposer_threshold debug_buffer_assignment_show_max
        gpu_threshold_for_windowed_einsum_mib gpu_nccl_collective_max_nchannels
        gpu_nccl_p2p_max_nchannels gpu_mlir_emitter_level gpu_max_mlir_kernels
        gpu_skip_mlir_kernels gpu_gemm_rewrite_size_threshold gpu_autotune_max_solutions
        reduce_window_rewrite_base_length
    """,
    "float": """
        gpu_auto_spmd_partitioning_memory_budget_ratio
    """,
    "message": """
        backend_extra_options
    """,
}
_TYPES = {"xla_" + name: kind for kind, names in _NAMES_BY_TYPE.items()
          for name in names.split()}


def check(options: dict[str, Any] | None) -> None:
    """Raises XLA's error for the first option JAX 0.4.30 would refuse.

    >>> check({"xla_embed_ir_in_executable": True})
    >>> check({"invalid_key": 1})
    Traceback (most recent call last):
    ...
    numjax._src.core.errors.XlaRuntimeError: INVALID_ARGUMENT: No such compile option: 'invalid_key'
    """
    for name, value in (options or {}).items():
        kind = _TYPES.get(name)
        if kind is None:
            raise XlaRuntimeError(f"INVALID_ARGUMENT: No such compile option: '{name}'")
        if not _parses(kind, value):
            raise XlaRuntimeError(f"INVALID_ARGUMENT: While setting option {name}, "
                                  f"'{_text(value)}' is not a valid {kind} value.")


def _parses(kind: str, value: Any) -> bool:
    # A Python value reaches XLA as a bool, an integer, a float or a string, each parsed its
    # own way for the option's type (as measured with jaxlib 0.4.30: a bool is no number, an
    # integral float is an integer, a string parses as the option's type).
    if kind == "bool":
        if isinstance(value, str):
            return value in ("True", "False")
        return isinstance(value, bool) or value in (0, 1)
    if isinstance(value, bool):
        return kind == "bool"
    if kind in ("int32", "int64"):
        if isinstance(value, str):
            return _is_number(value, int)
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "float":
        return isinstance(value, float) or (isinstance(value, str) and _is_number(value, float))
    return kind == "string" and isinstance(value, str)  # enum and message options: none parse


def _is_number(text: str, kind: type) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def _text(value: Any) -> str:
    return str(int(value)) if isinstance(value, bool) else str(value)
