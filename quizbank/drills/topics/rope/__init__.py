"""RoPE: rotating q and k by position (half and interleaved layouts, attention with GQA, KV-cache decoding)."""
