"""Paper search: one `PaperSearch` over the runs (`runs.Run`) of a collection, used by the CLI
(`batch.search_batch`), the server (`served.FusedPaperSearch`) and evaluation."""
