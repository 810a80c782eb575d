"""Model conversion: Meta's interleaved q/k weights to Hugging Face's half layout.

The cases and known mistakes that grade them (imports torch)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from posenc_ref.rope import half_to_interleaved_permutation, interleaved_to_half_permutation

from ...judging import Case, Spec, randn


# -- meta-to-hf-permute ---------------------------------------------------------------------------------------
def _permute_rows(w: torch.Tensor, n_heads: int, perm_fn: Callable[..., torch.Tensor]) -> torch.Tensor:
    rows, cols = w.shape
    head_dim = rows // n_heads
    perm = perm_fn(head_dim)
    return w.reshape(n_heads, head_dim, cols)[:, perm].reshape(rows, cols)


def meta_spec() -> Spec:
    def reference(w: torch.Tensor, n_heads: int) -> torch.Tensor:
        return _permute_rows(w, n_heads, half_to_interleaved_permutation)  # hf = meta[perm]

    def cases() -> list[Case]:
        return [
            Case("one head, head_dim 8", (randn(8, 5, seed=110), 1), atol=0),
            Case("4 heads, head_dim 8", (randn(32, 6, seed=111), 4), atol=0),
            Case("3 heads, head_dim 4 (GQA k_proj shape)", (randn(12, 16, seed=112), 3), atol=0),
            Case("2 heads, head_dim 2", (randn(4, 3, seed=113), 2), atol=0),
        ]

    return Spec(
        reference=reference,
        cases=cases,
        probes=lambda: [
            Case("probe", (randn(r, 2, seed=120 + r), h), atol=0) for r, h in ((4, 1), (8, 1), (8, 2))
        ],
        mistakes=[
            (
                "this is the inverse permutation (HF → Meta): hf[r·head_dim/2 + i] = meta[2i + r]",
                lambda w, h: _permute_rows(w, h, interleaved_to_half_permutation),
            ),
            (
                "the whole matrix is permuted as one head; permute within each head's rows",
                lambda w, h: _permute_rows(w, 1, half_to_interleaved_permutation),
            ),
            ("the rows are returned unchanged", lambda w, h: w),
        ],  # fmt: skip
    )


SPECS: dict[str, Callable[[], Spec]] = {
    "meta-to-hf-permute": meta_spec,
}
