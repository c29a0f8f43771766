"""PDFs -> papers: through a GROBID server (`grobid`) or offline from the page layout (`layout`, `structure`).

Both start with the byte checks (`checks`); the offline parse runs in a bounded child process (`offline`).
"""
