"""Hostile-input generators and the fuzz driver shared by `tests/fuzz` and `benchmarks/fuzz.py`."""
