"""posenc_ref: reference implementations of Transformer position encodings.

Every encoding has a *textbook form* (numpy float64, mirrors the paper's formula line by
line, suffix ``_np``) and a *fast form* (torch, batched, device-aware, float32 by default).

Importing this package is cheap: names resolve lazily on first access, so
``import posenc_ref`` does not import torch.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> module that defines it. Every public name of every module here is listed (a module's `__all__`,
# else its top-level functions and classes not named `_*`): tests/test_architecture.py fails on one left out.
_EXPORTS: dict[str, str] = {
    # devices and budgets
    "pick_device": "device",
    "DeviceUnavailableError": "device",
    "resolve_dtype": "device",
    "release_freed_memory": "heap",
    "MMAP_THRESHOLD": "heap",
    # sinusoidal
    "sinusoidal_pe": "sinusoidal",
    "sinusoidal_pe_np": "sinusoidal",
    "sinusoidal_shift": "sinusoidal",
    "sinusoidal_shift_np": "sinusoidal",
    "sinusoidal_wavelengths": "sinusoidal",
    "sinusoidal_frequencies_np": "sinusoidal",
    # learned absolute
    "LearnedPositionalEmbedding": "learned",
    "PositionOutOfRangeError": "learned",
    "resample_2d_table": "learned",
    # RoPE
    "rope_inv_freq": "rope",
    "rope_inv_freq_np": "rope",
    "apply_rope": "rope",
    "apply_rope_np": "rope",
    "rotate_half": "rope",
    "rope_rotation_matrix_np": "rope",
    "half_to_interleaved_permutation": "rope",
    "rope_cos_sin": "rope",
    # RoPE scaling / context extension
    "rope_scaled_inv_freq": "rope_scaling",
    "rope_scaled_inv_freq_np": "rope_scaling",
    "ROPE_TYPES": "rope_scaling",
    "ROPE_SCALING_RULES": "rope_scaling",
    "ScalingRule": "rope_scaling",
    # multimodal RoPE
    "mrope_positions": "mrope",
    "apply_rope_textbook": "rope",
    "rotate_every_two": "rope",
    "interleaved_to_half_permutation": "rope",
    "rope_cache_info": "rope",
    "rope_cache_clear": "rope",
    "rope_compile_status": "rope_compile",
    "rope_wait_for_compile": "rope_compile",
    "rope_no_background_compile": "rope_compile",
    "FUSED_HALF": "rope_compile",
    "FusedHalfKernel": "rope_compile",
    "LAYOUTS": "rope",
    "yarn_correction_range": "rope_scaling",
    "yarn_get_mscale": "rope_scaling",
    "llama3_frequency_bands": "rope_scaling",
    "apply_mrope": "mrope",
    "mrope_positions_np": "mrope",
    "mrope_pair_axes": "mrope",
    "mrope_temporal_ids_np": "mrope",
    "mrope_temporal_step": "mrope",
    "MROPE_SECTION": "mrope",
    # axial 3-D RoPE (video diffusion transformers)
    "wan_axis_split": "axial_rope",
    "axial_inv_freqs_np": "axial_rope",
    "apply_axial_rope": "axial_rope",
    "apply_axial_rope_np": "axial_rope",
    # ALiBi
    "alibi_slopes": "alibi",
    "alibi_slopes_np": "alibi",
    "alibi_bias": "alibi",
    "alibi_bias_np": "alibi",
    "alibi_slopes_paper": "alibi",
    "alibi_bias_bloom": "alibi",
    # T5
    "t5_relative_position_bucket": "t5",
    "t5_validate_params": "t5",
    "t5_relative_position_bucket_np": "t5",
    "t5_bucket_grid": "t5",
    # relative family
    "shaw_relative_indices": "shaw",
    "shaw_attention_scores": "shaw",
    "shaw_attention_scores_np": "shaw",
    "shaw_relative_indices_np": "shaw",
    "shaw_attention": "shaw",
    "shaw_attention_np": "shaw",
    "xlnet_score_terms": "xlnet",
    "xlnet_score_terms_np": "xlnet",
    "XLScoreTerms": "xlnet",
    "deberta_score_terms": "deberta",
    "deberta_score_terms_np": "deberta",
    "deberta_relative_indices": "deberta",
    "deberta_scale": "deberta",
    "deberta_log_bucket": "deberta",
    "deberta_log_bucket_np": "deberta",
    "deberta_delta_np": "deberta",
    "DebertaScoreTerms": "deberta",
    # NoPE: position from the causal mask alone
    "nope_causal_attention": "nope",
    "nope_causal_attention_np": "nope",
    "nope_first_token_signal": "nope",
    "nope_first_token_signal_np": "nope",
    "nope_recover_positions": "nope",
    "nope_recover_positions_np": "nope",
    "first_wrong_position": "nope",
    "first_collision": "nope",
    # long context: KV-cache size, attention cost, GQA, StreamingLLM positions, packed sequences
    "kv_cache_bytes": "longctx",
    "rope_kernel_traffic": "longctx",
    "attention_score_flops": "longctx",
    "repeat_kv": "longctx",
    "gqa_attention": "longctx",
    "streaming_cache_positions": "longctx",
    "packed_position_ids": "longctx",
    "cu_seqlens_from_position_ids": "longctx",
    "document_causal_mask": "longctx",
    # integer / binary encodings, absolute-PE expansion
    "integer_pe_np": "discrete",
    "binary_pe_np": "discrete",
    "binary_bits_needed": "discrete",
    "absolute_score_terms": "expansion",
    "absolute_score_terms_np": "expansion",
    "ExpansionTerms": "expansion",
    # demos
    "DemoResult": "demos.base",
    "list_demos": "demos",
    "get_demo": "demos",
    "run_demo": "demos",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'posenc_ref' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"posenc_ref.{module_name}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
