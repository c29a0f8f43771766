"""The real-text study as markdown: one row per model, one column per task, paired tests against the base."""

from __future__ import annotations

from typing import Any

LABELS = {
    "acl_ta_ta": "ACL TA→TA",
    "acl_body_ta": "ACL Body→TA",
    "acl_body_body": "ACL Body→Body",
    "scitldr_tldr2paper": "SciTLDR TLDR→paper",
    "scitldr_tldr2paper_author": "SciTLDR author TLDR→paper",
    "scitldr_title2abstract": "SciTLDR title→abstract",
    "scitldr_half2half": "SciTLDR half→half",
}
ALPHA = 0.05


def _cell(row: dict[str, Any]) -> str:
    text = f"{row['score']:.1f}"
    if "delta_vs_base" in row:
        p = row.get("p_vs_base")
        mark = "" if p is None or p > ALPHA else (" ▲" if row["delta_vs_base"] > 0 else " ▼")
        shown = f", p={p:.2g}" if p is not None else ""
        text += f" ({row['delta_vs_base']:+.1f}{shown}){mark}"
    return text


def render_real_study(results: dict[str, Any]) -> str:
    models = results["models"]
    tasks = list(next(iter(models.values()))["tasks"])
    n = {t: next(iter(models.values()))["tasks"][t]["n"] for t in tasks}
    e = results["evaluation"]
    lines = [
        "# Real papers: every recipe against its base",
        "",
        f"Corpus: `{results['source']}`; split {e['split']}, {e['queries']} queries; every model reads "
        f"{e['max_seq_length']} tokens; NDCG@10 ×100. Cells: score (difference to the base, {results['test']} "
        f"p-value); ▲/▼ significant at p ≤ {ALPHA}.",
        "",
        "| model | " + " | ".join(f"{LABELS.get(t, t)} (n={n[t]})" for t in tasks) + " |",
        "| --- | " + " | ".join("---:" for _ in tasks) + " |",
    ]
    for name, model in models.items():
        lines.append(f"| {name} | " + " | ".join(_cell(model["tasks"][t]) for t in tasks) + " |")
    if results.get("ablations"):
        lines += ["", "## Each paper's central ablation", "",
                  "| arm | reference | " + " | ".join(LABELS.get(t, t) for t in tasks) + " |",
                  "| --- | --- | " + " | ".join("---:" for _ in tasks) + " |"]
        for name, rows in results["ablations"].items():
            ref = next(iter(rows.values()))["reference"]
            cells = [f"{rows[t]['score']:.1f} vs {rows[t]['reference_score']:.1f} (p={rows[t]['p']:.2g})"
                     if t in rows else "—" for t in tasks]
            lines.append(f"| {name} | {ref} | " + " | ".join(cells) + " |")
    geometry = {name: m["geometry"] for name, m in models.items() if m.get("geometry")}
    if geometry:
        keys = sorted({k for g in geometry.values() for k in g})
        lines += ["", "## Geometry (test split views)", "", "| model | " + " | ".join(keys) + " |",
                  "| --- | " + " | ".join("---:" for _ in keys) + " |"]
        for name, g in geometry.items():
            lines.append(f"| {name} | " + " | ".join(f"{g[k]:.3g}" if k in g else "—" for k in keys) + " |")
    return "\n".join(lines) + "\n"
