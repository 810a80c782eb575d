"""Generated questions: a numeric question with `vary:` is a family, and each seed draws one instance of it.

- `draw`: the `vary:` spec's parameters drawn for a seed, and `{name}` placeholders filled (pure, no torch);
- `instances`: one drawn instance of a question, its answer computed by the answer's demo;
- `findings`: what `bank validate` says about a `vary:` spec without running anything;
- `instance_checks`: `bank validate` runs every question's instances for seeds 0..7 (the demos run).
"""
