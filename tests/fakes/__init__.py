"""Test doubles, kept out of the installed package: nothing under ``src/`` imports them.

- `fakes.http`: the stdlib HTTP server the stand-ins below share;
- `fakes.llm_server`: an OpenAI-compatible chat / completions / embeddings server;
- `fakes.grobid`: a GROBID REST stand-in answering with TEI from a folder;
- `fakes.pdfs`: PDFs generated in code (no binary fixtures);
- `fakes.models`: tiny random-init BERT models built on disk;
- `fakes.fuzzing`: hostile-input generators and the fuzz driver (`tests/fuzz`, `benchmarks/fuzz.py`).

pytest puts ``tests/`` on ``sys.path`` (``pythonpath`` in pyproject.toml), so tests import ``fakes.…``;
scripts under ``benchmarks/`` add it themselves; by hand: ``PYTHONPATH=tests python -m fakes.llm_server``.
"""
