"""PDFs -> papers: through a GROBID server (`grobid`) or offline from the page layout (`layout`, `structure`).

Both paths start with the same byte checks (`checks`); the offline parse runs
in a bounded child process (`offline`). `sciembed.papers.readers.pdf` plugs
whichever is in use into the readers' registry.
"""
