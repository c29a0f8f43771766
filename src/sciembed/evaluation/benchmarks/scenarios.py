"""Kinds ``citation`` and ``section_retrieval``: a corpus' scenarios as ordinary ranking tasks.

Each scenario (TA→TA, Body→TA, Body→Body; Section→same paper) is one `RankingTask`, its texts cut as `TextStyle`
says; citation's geometry (dense models, ``geometry: true``) is one more `VectorTask` of kind ``geometry``.
``citation``: a built corpus, each scenario a ranking task; ``section_retrieval``: same-paper section retrieval,
one ranking task over every section text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sciembed.evaluation.contract import RankingTask, TaskResult, TextStyle, VectorTask, primary_summary
from sciembed.evaluation.keys import SCENARIOS, ScenarioKey


@dataclass
class ScenarioBenchmark:
    """A citation benchmark (a built corpus) or a same-paper section benchmark, one task per scenario."""

    benchmark: Any  # CitationBenchmark | SectionRetrievalBenchmark
    name: str
    kind: str = "citation"
    scenarios: tuple[str, ...] = SCENARIOS
    body_modes: tuple[str, ...] = ("windowed",)
    primary: str = "ndcg@10"
    geometry: bool = False  # dense models: alignment, uniformity, spectrum as one more task
    window_tokens: int | None = None  # body windows' token budget (default: the model's, `TextStyle`)

    def fingerprint(self) -> str:
        """Changes with the data and options; ``x1``: scored by the executor (cells of the older harness, which
        lacked full-list NDCG, R-precision and the first relevant rank, are recomputed)."""
        return (f"{self.benchmark.fingerprint()}:{','.join(self.scenarios)}:{','.join(self.body_modes)}"
                f":g{int(self.geometry)}:w{self.window_tokens}:x1")

    def describe(self) -> dict[str, Any]:
        d = self.benchmark.describe()
        return {**{k: v for k, v in d.items() if k != "issues"}, "name": self.name, "scenarios": list(self.scenarios),
                "body_modes": list(self.body_modes), "issues": d.get("issues", [])}

    def tasks(self, style: TextStyle) -> list[RankingTask | VectorTask]:
        from sciembed.evaluation.input_format import format_tasks
        from sciembed.views import target_words

        bench = self.benchmark
        words = target_words(self.window_tokens or style.window_tokens)
        keys = bench.keys(self.scenarios, self.body_modes)
        scenarios = [bench.task(key, words, ta_join=style.ta_join) if bench.kind == "citation"
                     else bench.task(key, words) for key in keys]
        if style.encoder is not None:  # a model card may ask for its recipe's input format (CoSAEmb)
            scenarios = format_tasks(scenarios, bench, style.encoder)
        tasks: list[RankingTask | VectorTask] = [replace(t, primary=self.primary, group=self.kind) for t in scenarios]
        if self.geometry and bench.kind == "citation" and style.encoder is not None:
            tasks.append(geometry_task(bench, keys, words, style.ta_join, self.kind))
        return tasks

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        """Each scenario's primary score and their mean; geometry is reported on the detail page, not here."""
        return primary_summary([r for r in results if r.kind != "geometry"])


def geometry_task(bench: Any, keys: Sequence[ScenarioKey], window_words: int, ta_join: str, group: str
                  ) -> VectorTask:
    """The S2Full geometry of a dense model's TA and body vectors (`geometry.citation_geometry`, seed 0).

    Texts are keyed ``<view>|<paper id>``: view ``ta`` for every paper, a body mode for papers with a body.
    """
    from sciembed.evaluation.geometry import citation_geometry, geometry_result

    ids = sorted(bench.papers)
    texts = {f"ta|{p}": bench.ta(p, ta_join) for p in ids}
    for mode in sorted({mode for _, mode in keys if mode}):
        texts.update((f"{mode}|{p}", bench.body(p, mode, window_words)) for p in ids if p in bench.paper_log)

    def score(vectors: Any) -> dict[str, Any]:
        views: dict[str, dict[str, Any]] = {}
        for key, vector in vectors.items():
            view, _, pid = key.partition("|")
            views.setdefault(view, {})[pid] = vector
        ta = views.pop("ta", {})
        metrics, details = geometry_result(citation_geometry(ta, bench.pairs(), views))
        return {**metrics, **details}

    return VectorTask("geometry", texts, score, primary="pair_alignment", group=group, kind="geometry")


def load_citation(entry: Any, context: Any) -> ScenarioBenchmark:
    from sciembed.evaluation.citation import QUERY_MODES, build_citation_benchmark
    from sciembed.evaluation.issues import BenchmarkError

    mode = entry.query_mode or "anchors"
    if mode not in QUERY_MODES:
        raise BenchmarkError(f"benchmark {entry.name}: query_mode {mode!r}; citation takes {', '.join(QUERY_MODES)}")
    bench = build_citation_benchmark(entry.resolved_path(), split=entry.split, paper_log_seed=entry.seed,
                                     queries=mode)
    return ScenarioBenchmark(bench, entry.name, "citation", tuple(entry.scenarios), tuple(entry.body_modes),
                             geometry=entry.geometry, window_tokens=entry.window_tokens)


def load_sections(entry: Any, context: Any) -> ScenarioBenchmark:
    from sciembed.evaluation.section_retrieval import build_section_benchmark

    bench = build_section_benchmark(entry.resolved_path(), split=entry.split, sample=entry.sample, seed=entry.seed,
                                    title=entry.section_title)
    return ScenarioBenchmark(bench, entry.name, "section_retrieval", primary="hit_rate@1",
                             window_tokens=entry.window_tokens)
