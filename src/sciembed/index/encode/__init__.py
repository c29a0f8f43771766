"""Corpus → vector shards: every view of every paper encoded once, in resumable Parquet shards, in this process
(`run.py`) or on a Ray cluster (`on_ray.py`); `batches.py` cuts shards, `store.py` is the on-disk layout. See
docs/encode.md."""
