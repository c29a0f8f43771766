"""Index: papers in, a searchable collection out — encode, build, store, and keep it live.

`encode/` writes every view's vector once, in resumable Parquet shards (one process or a Ray cluster);
`paper_index` / `fulltext_index` / `bm25_paper` build and store dense, full-text and BM25 index directories
(`from_vectors`: from those shards); `collection` is a built index served live (adds, deletes, a catalog of
papers and views, `compaction`, a `write_queue` for acknowledged adds). The index structures themselves
(faiss, bm25s, several views per paper) are `sciembed.retrieval`; searching a collection is `sciembed.search`.
"""
