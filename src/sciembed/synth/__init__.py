"""Seeded synthetic full-text corpus (`sciembed synth`): papers, citation graph, and files on disk.

Everything it writes says it is synthetic (source, venues, SYNTHETIC.md, manifest).
"""

from sciembed.synth.generate import SOURCE, SyntheticCorpus, SynthOptions, generate_papers
from sciembed.synth.graph import paper_id, synthetic_graph
from sciembed.synth.write import write_synthetic

__all__ = ["SOURCE", "SynthOptions", "SyntheticCorpus", "generate_papers", "paper_id", "synthetic_graph",
           "write_synthetic"]
