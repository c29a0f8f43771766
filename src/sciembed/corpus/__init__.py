"""sciembed.corpus: a set of papers plus a citation graph on disk; the S2Full funnel; zero-overlap splits.

`layout` is the directory contract every stage reads through (`CorpusDir`); `build.build_corpus` turns an
ingested corpus (+ edge files) into a built one. Kept free of imports so that importing `layout` stays cheap.
"""
