"""RoPE variants: M-RoPE position ids, 2-D axial RoPE, partial rotary."""
