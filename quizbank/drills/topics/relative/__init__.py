"""Relative positions: T5 buckets and Shaw et al.'s relative logits."""
