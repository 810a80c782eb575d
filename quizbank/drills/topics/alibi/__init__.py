"""ALiBi: per-head slopes and the distance bias."""
