"""sciembed.corpus: a set of papers plus a citation graph on disk; the S2Full funnel; zero-overlap splits.

`layout` is the directory contract every stage reads through (`CorpusDir`).
`build.build_corpus` turns an ingested corpus (+ edge files) into a built one:
`papers_table` (paper facts into DuckDB), `resolve` (reference -> paper by id or
title, keys from `keys`), `edges` (edge files), `funnel` (stages 1-7, counted in
`report`), `splits` (citation-ball splits), `plots`. `config.FunnelConfig` holds
every knob; `engine` is the DuckDB connection. Kept free of imports so that
importing `sciembed.corpus.layout` stays cheap.
"""
