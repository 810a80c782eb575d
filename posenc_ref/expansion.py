"""The 4-term expansion of an attention logit under additive absolute position encoding.

With token embeddings x_i and absolute encodings p_i added at the input (Vaswani et al. 2017;
the starting point of Transformer-XL §3.3, DeBERTa §3.1 and Ke et al. 2021, "TUPE")::

    q_i · k_j = (x_i + p_i) W_Q · (x_j + p_j) W_K
              = x_i W_Q · x_j W_K      content-content
              + x_i W_Q · p_j W_K      content-position
              + p_i W_Q · x_j W_K      position-content
              + p_i W_Q · p_j W_K      position-position

The relative schemes are edits of this sum: Shaw and Transformer-XL replace p_j with a relative
vector, T5 and ALiBi keep content-content and replace position-position with a scalar bias,
DeBERTa drops position-position and keeps the two cross terms with relative embeddings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:
    import torch


class ExpansionTerms(NamedTuple):
    """The four terms, each ``[..., L, L]``, and their sum."""

    content_content: Any
    content_position: Any
    position_content: Any
    position_position: Any
    total: Any


def absolute_score_terms_np(x: np.ndarray, p: np.ndarray, w_q: np.ndarray, w_k: np.ndarray) -> ExpansionTerms:
    """Textbook terms: x, p ``[L, d_model]``, w_q, w_k ``[d_model, d]``; every (i, j) one at a time."""
    x, p, w_q, w_k = (np.asarray(a, dtype=np.float64) for a in (x, p, w_q, w_k))
    n = x.shape[0]
    xq, xk = x @ w_q, x @ w_k  # rows: x_i W_Q, x_j W_K
    pq, pk = p @ w_q, p @ w_k  # rows: p_i W_Q, p_j W_K
    cc, cp, pc, pp = (np.zeros((n, n)) for _ in range(4))
    for i in range(n):
        for j in range(n):
            cc[i, j] = xq[i] @ xk[j]  # x_i W_Q · x_j W_K
            cp[i, j] = xq[i] @ pk[j]  # x_i W_Q · p_j W_K
            pc[i, j] = pq[i] @ xk[j]  # p_i W_Q · x_j W_K
            pp[i, j] = pq[i] @ pk[j]  # p_i W_Q · p_j W_K
    return ExpansionTerms(cc, cp, pc, pp, cc + cp + pc + pp)


def absolute_score_terms(
    x: torch.Tensor, p: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor
) -> ExpansionTerms:
    """Fast terms: x ``[..., L, d_model]``, p ``[L, d_model]`` (broadcast over the batch), weights
    ``[d_model, d]``. Four matrix products of the projected halves."""
    qx, qp = x @ w_q, p @ w_q
    kx, kp = x @ w_k, p @ w_k
    cc = qx @ kx.transpose(-1, -2)
    cp = qx @ kp.transpose(-1, -2)
    pc = qp @ kx.transpose(-1, -2)
    pp = qp @ kp.transpose(-1, -2)
    pc, pp = pc.expand_as(cc), pp.expand_as(cc)
    return ExpansionTerms(cc, cp, pc, pp, cc + cp + pc + pp)
