"""Generated questions worth drawing: the T5 bucket questions answered 14 or 15 in 9 of 12 draws (n uniform
in 1..200, and every n from 91 on is bucket 15). Each bucket is now about as likely as any other."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from posenc_ref.t5 import t5_relative_position_bucket_np
from quizbank.generated.findings import VALIDATION_SEEDS
from quizbank.generated.instances import draw_instance


@pytest.mark.parametrize(
    ("qid", "sign", "offset"), [("relative.t5-bucket-before", -1, 0), ("relative.t5-bucket-after", 1, 16)]
)
def test_t5_bucket_questions_draw_every_bucket_about_equally(
    shipped, qid: str, sign: int, offset: int
) -> None:
    question = shipped.questions[qid]

    def bucket(seed: int) -> int:
        n = int(draw_instance(question, seed).params["n"])
        rp = np.array([sign * n])
        return int(
            t5_relative_position_bucket_np(rp, bidirectional=True, num_buckets=32, max_distance=128)[0]
        )

    counts = Counter(bucket(seed) for seed in range(1500))
    assert sorted(counts) == list(range(offset + 1, offset + 16))  # buckets 1-15 of the direction
    assert max(counts.values()) < 2 * min(counts.values())  # ~100 each; 14 and 15 took 9 in 12 before
    assert len({bucket(seed) for seed in VALIDATION_SEEDS}) >= 4  # what `bank validate` draws


def test_the_causal_t5_bucket_question_draws_each_log_bucket(shipped) -> None:
    """n in 0..300 put 188 of 301 values (every n from 113 on) in bucket 31, and 8 draws gave 3 answers."""
    question = shipped.questions["relative.t5-bucket-causal"]

    def bucket(seed: int) -> int:
        n = int(draw_instance(question, seed).params["n"])
        return int(
            t5_relative_position_bucket_np(
                np.array([-n]), bidirectional=False, num_buckets=32, max_distance=128
            )[0]
        )

    counts = Counter(bucket(seed) for seed in range(1500))
    assert set(range(16, 32)) <= set(counts)  # every log-spaced bucket, and the saturated one
    assert counts[31] < 3 * 1500 / len(counts)  # no longer most of the draws
    assert len({bucket(seed) for seed in VALIDATION_SEEDS}) >= 4
