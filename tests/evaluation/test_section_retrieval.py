"""Same-paper section retrieval, and CoSAEmb's input format in the harness (model card input_format)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest

from sciembed.evaluation import build_citation_benchmark, evaluate, scenario_benchmark
from sciembed.evaluation.section_retrieval import build_section_benchmark
from sciembed.models.card import ModelCard
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section, SectionRole


class PaperKeyEncoder:
    """Vector = one-hot of the paper key (a word "kX") found in the text; `noise` papers share one vector.

    Records every text it encodes, so tests can see the input format.
    """

    def __init__(self, keys: Sequence[str], metric: str = "cosine", card: ModelCard | None = None,
                 confuse: frozenset[str] = frozenset()) -> None:
        self.keys = list(keys)
        self.metric = metric
        self.card = card
        self.confuse = confuse
        self.name = f"keys-{metric}"
        self.fingerprint = self.name + (card.input_format if card else "")
        self.max_seq_length = 40
        self.dim = len(keys) + 1
        self.seen: list[str] = []

    def encode(self, texts, *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        self.seen += list(texts)
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            key = next((k for k in re.findall(r"\bk\w+", text) if k in self.keys), None)
            if key is None or key in self.confuse:  # one vector for all: they tie, in seeded-hash order
                out[i, self.dim - 1] = 3.0
                continue
            out[i, self.keys.index(key)] = 3.0
            out[i, :] += 0.01 * (sum(map(ord, text)) % 3)  # distinct vectors, same ranking, whatever the batch
        return out

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def paper(key: str, roles: Sequence[SectionRole], domain: str = "cs") -> Paper:
    sections = tuple(Section(f"{r.value} heading", f"Sentence one about {key} here. Sentence two with filler words.",
                             r) for r in roles)
    return Paper(id=key[1:].upper(), title=f"Title {key}", abstract=f"Abstract {key}.", sections=sections,
                 domain=domain)


@pytest.fixture
def ingested(tmp_path):
    R = SectionRole
    papers = [paper("ka", [R.INTRODUCTION, R.METHOD, R.OTHER, R.RESULTS]),
              paper("kb", [R.INTRODUCTION, R.CONCLUSION]),
              paper("kc", [R.METHOD]),  # one section text: candidate only
              paper("kd", [R.RELATED_WORK, R.RESULTS, R.CONCLUSION]),
              Paper(id="KE", title="Title ke", abstract="No body.")]
    root = tmp_path / "ingested"
    root.mkdir()
    write_parquet(papers, root / "papers.parquet")
    return root


def test_units_queries_and_success(ingested):
    bench = build_section_benchmark(ingested)
    # A: introduction, method (method + other merged), results; B: 2; C: 1; D: 3; E has no body.
    assert sorted(bench.units) == ["A#introduction", "A#method", "A#results", "B#conclusion", "B#introduction",
                                   "C#method", "D#conclusion", "D#related_work", "D#results"]
    task = bench.task(("section", None), 0)
    assert "C#method" not in task.queries and len(task.queries) == 8
    assert task.qrels["A#method"] == {"A#introduction": 1, "A#results": 1}
    assert task.queries["A#method"].startswith("Title ka. Sentence one about ka here.")
    assert sorted(i.what for i in bench.issues) == ["paper with one section text", "paper without body text"]

    keys = ["ka", "kb", "kc", "kd"]
    perfect = evaluate(PaperKeyEncoder(keys), scenario_benchmark(bench), show_progress=False).result("section")
    scores = perfect.metrics
    assert scores["hit_rate@1"] == scores["hit_rate@3"] == scores["mrr"] == 100.0
    # A and B look alike to this model: their sections rank 1-2 mixed up, D stays perfect.
    l2 = evaluate(PaperKeyEncoder(keys, metric="l2", confuse=frozenset({"ka", "kb"})), scenario_benchmark(bench),
                  show_progress=False)
    per = l2.result("section").per_query
    assert per["hit_rate@1"]["D#results"] == 100.0 and l2.config["distance"] == "l2"
    assert 0 < l2.result("section").metrics["hit_rate@1"] < 100.0
    assert all(per["hit_rate@3"][q] >= per["hit_rate@1"][q] for q in per["hit_rate@1"])


def test_seeded_sample_and_no_title(ingested):
    a = build_section_benchmark(ingested, sample=3, seed=1)
    assert a.fingerprint() == build_section_benchmark(ingested, sample=3, seed=1).fingerprint()
    assert len({u.paper_id for u in a.units.values()}) <= 3
    bare = build_section_benchmark(ingested, title=False)
    assert bare.text("A#method").startswith("Sentence one about ka here.")
    with pytest.raises(ValueError, match="at least 2 papers"):
        build_section_benchmark(ingested, sample=1)


def test_cosaemb_models_read_cosaemb_inputs(ingested):
    card = ModelCard(recipe="cosaemb", metric="l2", input_format="cosaemb", pooling="cls")
    encoder = PaperKeyEncoder(["ka", "kb", "kc", "kd"], metric="l2", card=card)
    evaluate(encoder, scenario_benchmark(build_section_benchmark(ingested)), show_progress=False)
    assert "[TTL] Title ka [SEP] [MET] Sentence one about ka here. Sentence two with filler words. Sentence one " \
           "about ka here. Sentence two with filler words." in encoder.seen  # method + other, merged
    assert all(t.startswith("[TTL] Title ") for t in encoder.seen)
    assert all(encoder.count_tokens(t) <= encoder.max_seq_length - 2 for t in encoder.seen)
    bare = PaperKeyEncoder(["ka", "kb", "kc", "kd"], metric="l2", card=card)
    evaluate(bare, scenario_benchmark(build_section_benchmark(ingested, title=False)), show_progress=False)
    assert "[RW] Sentence one about kd here. Sentence two with filler words." in bare.seen


def test_cosaemb_format_on_the_citation_benchmark(citation_corpus):
    bench = build_citation_benchmark(citation_corpus)
    card = ModelCard(recipe="cosaemb", metric="l2", input_format="cosaemb", pooling="cls",
                     extra={"title_sep": False})
    encoder = PaperKeyEncoder(list("ABCDEFG"), metric="l2", card=card)
    evaluate(encoder, scenario_benchmark(bench, scenarios=["ta_ta", "body_ta"]), show_progress=False)
    first = bench.papers["A"]
    assert f"[TTL] {first.title} [ABS] {first.abstract}" in encoder.seen  # title_sep False: no [SEP]
    body = [t for t in encoder.seen if not t.startswith("[TTL] ta-") or "[ABS]" not in t]
    assert body and all(re.match(r"\[TTL\] ta-\w study \[(MET|INTR|RW|RES|CONC)\] ", t) for t in body)


def test_cosaemb_format_on_beir_documents(tmp_path):
    import json

    from sciembed.evaluation import load_beir
    from sciembed.evaluation.benchmarks.beir import BeirAdapter

    (tmp_path / "qrels").mkdir()
    docs = [{"_id": "d1", "title": "Title ka", "text": "About ka."}, {"_id": "d2", "title": "", "text": "About kb."}]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (tmp_path / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "what about ka"}) + "\n")
    (tmp_path / "qrels" / "test.tsv").write_text("q1\td1\t1\n")
    card = ModelCard(recipe="cosaemb", metric="l2", input_format="cosaemb")
    encoder = PaperKeyEncoder(["ka", "kb"], metric="l2", card=card)
    cell = evaluate(encoder, BeirAdapter({"beir": load_beir(tmp_path)}, "beir"), show_progress=False)
    assert set(encoder.seen) == {"what about ka", "[TTL] Title ka [SEP] [ABS] About ka.", "[ABS] About kb."}
    assert cell.result("beir").metrics["mrr"] == 100.0
