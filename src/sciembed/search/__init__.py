"""Paper search: one `PaperSearch` over the runs of a collection, used by the CLI, the server and evaluation.

`runs.Run` is one ranked list (an index and the way a query paper is put to it: BM25 over its text, a dense
index over its views by a paper method), `paper_search.PaperSearch` ranks query papers by one run or fuses
several (a tuned `FusionSpec`, the measured default, or RRF). `open.open_run` opens an index directory as a run,
`batch.search_batch` is ``sciembed index search``, `served.FusedPaperSearch` the service's similar papers.
"""
