"""CoSAEmb's recipe: local, global and inter-document triplets with a graded triplet loss.

`prepare` cuts the train split into CoSAEmb units with the base's tokenizer (special tokens registered) and
draws every epoch from the seed; `build` adds the model (CLS pooling), the loss and the collator. The saved
model's card (metric l2, input format cosaemb) makes `sciembed eval` rank and format as it was trained.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.training.recipes.cosaemb_config import CosaembConfig
from sciembed.training.schedule_report import RunLength, rich_table
from sciembed.training.sources.triplets import KINDS, EpochTriplets, TripletData, build_triplet_data, draw_epoch
from sciembed.training.trainer import RecipeParts
from sciembed.views.chunk import SECTION_CLASSES, SPECIAL_TOKENS
from sciembed.views.tokens import tokenizer_counter

NAME = "cosaemb"
CONFIG = CosaembConfig


def load_tokenizer(config: CosaembConfig):
    """The base model's tokenizer with CoSAEmb's special tokens registered (what the model will see)."""
    from transformers import AutoTokenizer

    from sciembed.models.loading import ModelLoadError, resolve_model_source
    from sciembed.training.special_tokens import add_tokens

    source = resolve_model_source(config.model.base)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=Path(source).is_dir())
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"could not load the tokenizer of {source!r}: {exc}") from exc
    add_tokens(tokenizer, SPECIAL_TOKENS, source)
    return tokenizer


def chunk_budget(tokenizer, max_seq_length: int) -> int:
    """Tokens a chunk may hold: the sequence length minus the tokenizer's own special tokens (510 for BERT)."""
    return max_seq_length - tokenizer.num_special_tokens_to_add(pair=False)


@dataclass(frozen=True)
class Prepared:
    data: TripletData
    epochs: list[EpochTriplets]
    budget: int
    batch_size: int
    fallbacks: dict[str, int] = field(default_factory=dict)

    @property
    def rows_per_epoch(self) -> int:
        return len(self.data)

    @property
    def batches_per_epoch(self) -> int:
        return -(-self.rows_per_epoch // self.batch_size)  # the last batch may be short

    def composition(self) -> dict[str, Any]:
        per_kind = {k: self.data.counts.get(k, 0) for k in KINDS}
        return {"batch_size": self.batch_size, "triplets_per_epoch": self.rows_per_epoch, "per_kind": per_kind,
                "batches_per_epoch": self.batches_per_epoch, "epochs": len(self.epochs),
                "per_class": self.data.per_class, "negative_fallbacks": self.fallbacks}

    def length(self) -> RunLength:
        return RunLength(self.batches_per_epoch * len(self.epochs), self.batches_per_epoch, self.batch_size)

    def summary(self) -> dict[str, Any]:
        counts = self.data.counts
        data = {"split": "train", "papers": counts["papers"],
                "papers_without_body": counts.get("papers_without_body", 0), "citations": counts["citations"],
                "texts": counts["texts"], "chunk_budget": self.budget}
        return {"data": data, "composition": self.composition()}

    def report(self):
        """Rich renderables: data counts, triplets per kind (Table 3 shape), per section class (Table 2 shape)."""
        from rich.console import Group
        from rich.text import Text

        c = self.data.counts
        comp = self.composition()
        lines = [f"train split: {c['papers']} papers ({c.get('papers_without_body', 0)} without body: inter-document "
                 f"triplets only), {c['citations']} directed citations; chunks of ≤ {self.budget} tokens",
                 f"{comp['triplets_per_epoch']} triplets per epoch, {comp['batches_per_epoch']} batches of "
                 f"{self.batch_size}, {comp['epochs']} epochs",
                 *(f"negatives, all epochs: {reason}: {n}" for reason, n in self.fallbacks.items())]
        n, total = comp["per_kind"], comp["triplets_per_epoch"]
        kinds = [(k, f"{n[k]:,}", f"{100 * n[k] / max(total, 1):.1f}%") for k in ("local", "global", "inter")]
        classes = [(c.value, *(f"{self.data.per_class.get(c.value, {}).get(k, 0):,}"
                               for k in ("section_texts", "chunks", "local", "global"))) for c in SECTION_CLASSES]
        return Group(Text("\n".join(lines)), rich_table("Triplets per epoch by kind", ("kind", "triplets", "share"),
                                                        [*kinds, ("total", f"{total:,}", "100.0%")]),
                     rich_table("Section texts by class",
                                ("class", "section texts", "chunks", "local triplets", "global triplets"), classes))


def texts_file(corpus: str | Path | CorpusDir) -> Path:
    """Where this process writes its chunk texts (next to the corpus's paper store); removed at exit."""
    import atexit
    import os

    from sciembed.corpus.paper_store import store_dir

    root = corpus.root if isinstance(corpus, CorpusDir) else Path(corpus)
    path = store_dir(root) / f"cosaemb-texts.{os.getpid()}.arrow"
    atexit.register(path.unlink, missing_ok=True)
    return path


def prepare(config: CosaembConfig, corpus: str | Path | CorpusDir, tokenizer=None) -> Prepared:
    from sciembed.training.sources.triplets import load_papers_and_citations

    d = config.data
    papers, citations = load_papers_and_citations(corpus, "train")
    tokenizer = tokenizer if tokenizer is not None else load_tokenizer(config)
    budget = chunk_budget(tokenizer, config.model.max_seq_length)
    count = tokenizer_counter(tokenizer)
    specter = d.inter_source == "specter"
    kinds = tuple(k for k in d.kinds if not (specter and k == "inter"))
    data = build_triplet_data(papers, citations, count, budget, kinds=kinds, negative=d.negative,
                              merge=d.merge_sections, sep=d.title_sep, source=str(corpus),
                              texts_out=texts_file(corpus))
    if specter:
        from sciembed.training.sources.specter import add_specter_inter, read_specter_release, specter_triplets

        release = read_specter_release(d.specter)
        triplets, _ = specter_triplets(release, d.specter_split, seed=config.seed)
        data = add_specter_inter(data, release, triplets, sep=d.title_sep)
    epochs = [draw_epoch(data, e, config.seed, negative=d.negative, inter_negative=d.inter_negative, order=d.order)
              for e in range(config.training.epochs)]
    fallbacks: Counter[str] = Counter()
    for epoch in epochs:
        fallbacks.update(epoch.fallbacks)
    return Prepared(data, epochs, budget, config.training.batch_size, dict(sorted(fallbacks.items())))


def epoch_of_step(prepared: Prepared):
    batches = prepared.batches_per_epoch
    total = batches * len(prepared.epochs)
    return lambda step: min(step, total) / batches


def _columns(prepared: Prepared) -> dict[str, np.ndarray]:
    """Every epoch's rows one after the other (the trainer runs one pass over them)."""
    return {name: np.concatenate([getattr(e, name) for e in prepared.epochs])
            for name in ("anchor", "positive", "negative", "label")}


def build(config: CosaembConfig, prepared: Prepared, corpus: str | Path | CorpusDir) -> RecipeParts:
    from datasets import Dataset

    from sciembed.models.card import ModelCard
    from sciembed.training.collator import TripletCollator
    from sciembed.training.losses.graded_triplet import GradedTripletLoss
    from sciembed.training.model import build_model
    from sciembed.training.sampler import InOrderBatchSampler
    from sciembed.training.special_tokens import register_special_tokens

    model = build_model(config.model, pooling=config.model.pooling)
    register_special_tokens(model, SPECIAL_TOKENS, config.model.base or "minilm")
    t = config.training
    card = ModelCard(recipe=NAME, metric="cosine" if t.normalize else "l2", input_format="cosaemb",
                     pooling=config.model.pooling,
                     extra={"title_sep": config.data.title_sep, "merge_sections": config.data.merge_sections,
                            "chunk_budget": prepared.budget, "special_tokens": list(SPECIAL_TOKENS),
                            "margins": dict(zip(KINDS, t.margins.by_kind(), strict=True))})
    return RecipeParts(model=model, dataset=Dataset.from_dict({k: v.tolist() for k, v in _columns(prepared).items()}),
                       collator=TripletCollator(preprocess_fn=model.preprocess, texts=prepared.data.texts),
                       batch_sampler=lambda dataset, batch_size: InOrderBatchSampler(dataset, batch_size),
                       loss=GradedTripletLoss(model, t.margins.by_kind(), normalize=t.normalize),
                       epoch_of_step=epoch_of_step(prepared), summary=prepared.summary(), model_card=card)
