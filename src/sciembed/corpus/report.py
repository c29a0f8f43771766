"""The funnel table (papers, pairs and directed citations after each stage, what each stage removed, by
reason) and funnel.md.

Invariant, checked as each row is added: the previous row's count minus this row's removed equals this row's
count, for papers, pairs and citations; nothing leaves without a reason.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sciembed.corpus.layout import SPLITS


@dataclass(frozen=True)
class StageCount:
    name: str
    label: str
    enabled: bool
    papers: int
    pairs: int
    removed_papers: dict[str, int] = field(default_factory=dict)
    removed_pairs: dict[str, int] = field(default_factory=dict)
    citations: int | None = None  # directed edges (None: a report written before directed citations)
    removed_citations: dict[str, int] = field(default_factory=dict)
    skipped: str | None = None  # why an enabled stage did not run (the metadata it filters on is absent)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class FunnelInvariantError(AssertionError):
    """Counts that do not add up: a bug in the funnel, never a property of the input."""


@dataclass
class FunnelReport:
    stages: list[StageCount] = field(default_factory=list)

    def add(self, stage: StageCount) -> StageCount:
        if self.stages:
            prev = self.stages[-1]
            checks = [("papers", prev.papers, stage.removed_papers, stage.papers),
                      ("pairs", prev.pairs, stage.removed_pairs, stage.pairs)]
            if prev.citations is not None and stage.citations is not None:
                checks.append(("citations", prev.citations, stage.removed_citations, stage.citations))
            for what, before, removed, after in checks:
                if before - sum(removed.values()) != after:
                    raise FunnelInvariantError(f"stage {stage.name}: {what} {before} - removed "
                                               f"{sum(removed.values())} != {after}")
        self.stages.append(stage)
        return stage

    def stage(self, name: str) -> StageCount:
        found = next((s for s in self.stages if s.name == name), None)
        if found is None:
            raise KeyError(name)
        return found

    def removed_by_reason(self) -> dict[str, dict[str, int]]:
        """All reject reasons: {'papers': {stage/reason: n}, 'pairs': {...}, 'citations': {...}}."""
        out: dict[str, dict[str, int]] = {"papers": {}, "pairs": {}, "citations": {}}
        for s in self.stages:
            for kind, removed in (("papers", s.removed_papers), ("pairs", s.removed_pairs),
                                  ("citations", s.removed_citations)):
                for reason, n in removed.items():
                    out[kind][f"{s.name}/{reason}"] = n
        return out

    def notes(self) -> list[str]:
        """One sentence per skipped stage, printed under the funnel table."""
        return [f"Stage {i} ({s.label}) skipped: {s.skipped}." for i, s in enumerate(self.stages) if s.skipped]

    def to_list(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.stages]

    @classmethod
    def from_list(cls, rows: list[dict[str, Any]]) -> FunnelReport:
        return cls([StageCount(**row) for row in rows])

    def rows(self, sep: str = ", ") -> list[tuple[str, ...]]:
        """(#, stage, papers, pairs, citations, removed papers, removed pairs, removed citations) as strings."""
        out = []
        for i, s in enumerate(self.stages):
            label = f"{s.label} (skipped)" if s.skipped else s.label if s.enabled else f"{s.label} (off)"
            citations = "—" if s.citations is None else f"{s.citations:,}"
            out.append((str(i), label, f"{s.papers:,}", f"{s.pairs:,}", citations, _reasons(s.removed_papers, sep),
                        _reasons(s.removed_pairs, sep), _reasons(s.removed_citations, sep)))
        return out

    def to_markdown(self) -> str:
        head = ("#", "stage", "papers", "pairs", "citations", "removed papers", "removed pairs", "removed citations")
        lines = ["| " + " | ".join(head) + " |", "|---|---|---:|---:|---:|---|---|---|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows()]
        return "\n".join(lines) + "\n"

    def to_rich(self, title: str = "Corpus funnel"):
        from rich.table import Table

        table = Table(title=title)
        # The terminal table leaves out the citations (funnel.md has them, stage by stage): two more columns
        # would wrap the reasons on a narrow terminal, and a citation leaves for its pair's reason anyway.
        for name, justify in (("#", "right"), ("stage", "left"), ("papers", "right"), ("pairs", "right"),
                              ("removed papers", "left"), ("removed pairs", "left")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for row in self.rows(sep="\n"):
            table.add_row(*row[:4], *row[5:7])
        return table


def _reasons(removed: dict[str, int], sep: str) -> str:
    return sep.join(f"{reason} {n:,}" for reason, n in removed.items()) or "—"


def funnel_markdown(manifest: dict[str, Any]) -> str:
    """The human-readable funnel report of a built corpus (from its manifest)."""
    report = FunnelReport.from_list(manifest["funnel"])
    refs = manifest["references"]
    lines = [f"# Corpus funnel{' (synthetic corpus)' if manifest.get('synthetic') else ''}", "",
             f"Input: `{manifest['input']['corpus']}`; seed {manifest['seed']}.", "", report.to_markdown()]
    if report.notes():
        lines += [*report.notes(), ""]
    lines += ["## References", "",
              f"{refs['read']:,} references read; resolved by key: "
              + (", ".join(f"{k} {v:,}" for k, v in refs["resolved"].items()) or "none")
              + "; unresolved: " + (", ".join(f"{k} {v:,}" for k, v in refs["unresolved"].items()) or "none") + ".", ""]
    if manifest["edge_files"]:
        lines += ["## Edge files", "", "| file | lines | accepted | rejected | blank lines |",
                  "|---|---:|---:|---|---:|"]
        for f in manifest["edge_files"]:
            rejected = ", ".join(f"{k} {v:,}" for k, v in f["rejected"].items()) or "—"
            lines.append(f"| `{f['path']}` | {f['lines']:,} | {f['accepted']:,} | {rejected} | {f['blank_lines']:,} |")
        examples = [e for f in manifest["edge_files"] for e in f["malformed_examples"]]
        if examples:
            lines += ["", "Malformed lines (first of each file):", ""] + [f"- `{e}`" for e in examples]
        lines.append("")
    splits = manifest["splits"]
    lines += ["## Splits", "",
              f"Zero paper overlap between splits; {splits['cross_split_pairs']:,} cross-split pairs "
              f"and {splits.get('cross_split_citations', 0):,} cross-split directed citations dropped. "
              "Queries are papers with at least one pair inside their split; relevant documents per query "
              "are their pair partners inside the split.", "",
              "| split | domain | papers | pairs | citations | queries | mean relevant / query |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for split in SPLITS:
        s = splits["splits"][split]
        for domain, d in s["domains"].items():
            lines.append(f"| {split} | {domain} | {d['papers']:,} | {d['pairs']:,} | {d.get('citations', 0):,} | "
                         f"{d['queries']:,} | {d['mean_relevant_per_query']:.2f} |")
        lines.append(f"| **{split}** | all | {s['papers']:,} | {s['pairs']:,} | {s.get('citations', 0):,} | "
                     f"{s['queries']:,} | {s['mean_relevant_per_query']:.2f} |")
    lines += ["", *split_notes(manifest),
              "", f"Rules: {manifest['rules']['pair_domain']}; domain cap: {manifest['rules']['domain_cap']}.", ""]
    return "\n".join(lines)


def split_notes(manifest: dict[str, Any]) -> list[str]:
    """Sentences printed under the split table: the anchor top-up and what the test split can detect."""
    from sciembed.corpus.power import DetectableDifference

    notes = []
    top_up = manifest["splits"].get("anchor_top_up")
    anchors = manifest["splits"]["splits"]["test"].get("anchors", 0)
    if top_up and top_up["seeds_added"]:
        notes.append(f"The test split took {top_up['seeds_added']:,} more citation balls to reach "
                     f"{anchors:,} anchor queries (min_test_anchors {top_up['min_test_anchors']:,}).")
    if top_up and anchors < top_up["min_test_anchors"]:
        notes.append(f"Only {anchors:,} test anchors fit within the limits: at most {top_up['max_test_papers']:,} test "
                     f"papers, and {top_up.get('val_room', 1.5):g} times the val target left outside the test "
                     "zone (test papers and their neighbors), where val seeds are drawn.")
    val = manifest["splits"]["splits"]["val"]
    if manifest["config"].get("val_size") and not val.get("anchors"):
        notes.append(f"warning: the val split has no anchor query ({val['papers']:,} papers): the test split and its "
                     "neighbours cover the rest of the citation graph; give a smaller --test-size for one.")
    if "test_power" in manifest:
        notes.append(DetectableDifference(**manifest["test_power"]).sentence() + ".")
    return notes
