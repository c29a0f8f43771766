"""Corpus → vector shards: every view of every paper encoded once, in resumable Parquet shards.

One process by default (`local.py`), or a Ray cluster (`on_ray.py`: Ray Data tasks read the corpus's
Parquet shard by shard and cut views, an actor pool encodes). Both cut the same shards into the same
length-sorted batches (`batches.py`), so they write the same vectors; `store.py` is the on-disk layout.
"""
