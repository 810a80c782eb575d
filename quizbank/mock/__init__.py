"""Mock interviews: plan (`planner`), key-point matching (`keypoints`), the report (`report`), the CLI (`cli`).

Logic only: no textual, no rich, no torch.
"""
