"""Absolute positions: the sinusoidal table and a learned embedding."""
