"""The funnel table (papers and pairs after each stage, what each stage removed, by reason) and funnel.md.

The rows obey one invariant, checked when a row is added: the previous row's
papers (pairs) minus this row's removed papers (pairs) equals this row's papers
(pairs). Nothing leaves the corpus without a reason.
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
            for what, before, removed, after in (
                ("papers", prev.papers, stage.removed_papers, stage.papers),
                ("pairs", prev.pairs, stage.removed_pairs, stage.pairs),
            ):
                if before - sum(removed.values()) != after:
                    raise FunnelInvariantError(
                        f"stage {stage.name}: {what} {before} - removed {sum(removed.values())} != {after}"
                    )
        self.stages.append(stage)
        return stage

    def stage(self, name: str) -> StageCount:
        for s in self.stages:
            if s.name == name:
                return s
        raise KeyError(name)

    def removed_by_reason(self) -> dict[str, dict[str, int]]:
        """All reject reasons: {'papers': {stage/reason: n}, 'pairs': {...}}."""
        out: dict[str, dict[str, int]] = {"papers": {}, "pairs": {}}
        for s in self.stages:
            for kind, removed in (("papers", s.removed_papers), ("pairs", s.removed_pairs)):
                for reason, n in removed.items():
                    out[kind][f"{s.name}/{reason}"] = n
        return out

    def to_list(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.stages]

    @classmethod
    def from_list(cls, rows: list[dict[str, Any]]) -> FunnelReport:
        return cls([StageCount(**row) for row in rows])

    def rows(self, sep: str = ", ") -> list[tuple[str, str, str, str, str, str]]:
        """(#, stage, papers, pairs, removed papers, removed pairs) as display strings."""
        out = []
        for i, s in enumerate(self.stages):
            label = s.label if s.enabled else f"{s.label} (off)"
            out.append((str(i), label, f"{s.papers:,}", f"{s.pairs:,}", _reasons(s.removed_papers, sep),
                        _reasons(s.removed_pairs, sep)))
        return out

    def to_markdown(self) -> str:
        head = ("#", "stage", "papers", "pairs", "removed papers", "removed pairs")
        lines = ["| " + " | ".join(head) + " |", "|---|---|---:|---:|---|---|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows()]
        return "\n".join(lines) + "\n"

    def to_rich(self, title: str = "Corpus funnel"):
        from rich.table import Table

        table = Table(title=title)
        for name, justify in (("#", "right"), ("stage", "left"), ("papers", "right"), ("pairs", "right"),
                              ("removed papers", "left"), ("removed pairs", "left")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for row in self.rows(sep="\n"):
            table.add_row(*row)
        return table


def _reasons(removed: dict[str, int], sep: str) -> str:
    return sep.join(f"{reason} {n:,}" for reason, n in removed.items()) or "—"


def funnel_markdown(manifest: dict[str, Any]) -> str:
    """The human-readable funnel report of a built corpus (from its manifest)."""
    report = FunnelReport.from_list(manifest["funnel"])
    refs = manifest["references"]
    lines = [f"# Corpus funnel{' (synthetic corpus)' if manifest.get('synthetic') else ''}", "",
             f"Input: `{manifest['input']['corpus']}`; seed {manifest['seed']}.", "", report.to_markdown()]
    lines += ["## References", "",
              f"{refs['read']:,} references read; resolved by key: "
              + (", ".join(f"{k} {v:,}" for k, v in refs["resolved"].items()) or "none")
              + "; unresolved: " + (", ".join(f"{k} {v:,}" for k, v in refs["unresolved"].items()) or "none") + ".",
              ""]
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
              f"Zero paper overlap between splits; {splits['cross_split_pairs']:,} cross-split pairs dropped. "
              "Queries are papers with at least one pair inside their split; relevant documents per query "
              "are their pair partners inside the split.", "",
              "| split | domain | papers | pairs | queries | mean relevant / query |", "|---|---|---:|---:|---:|---:|"]
    for split in SPLITS:
        s = splits["splits"][split]
        for domain, d in s["domains"].items():
            lines.append(f"| {split} | {domain} | {d['papers']:,} | {d['pairs']:,} | {d['queries']:,} | "
                         f"{d['mean_relevant_per_query']:.2f} |")
        lines.append(f"| **{split}** | all | {s['papers']:,} | {s['pairs']:,} | {s['queries']:,} | "
                     f"{s['mean_relevant_per_query']:.2f} |")
    lines += ["", f"Rules: {manifest['rules']['pair_domain']}; domain cap: {manifest['rules']['domain_cap']}.", ""]
    return "\n".join(lines)
