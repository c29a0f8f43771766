"""How much of each view kind a 256-token encoder never reads, before and after views were sized to it.

For every paper of an ingested collection (the ACL GROBID corpus), with MiniLM's own tokenizer and
budget (max_seq_length 256 − [CLS]/[SEP] = 254 text tokens), per view kind: views, views over the
budget, tokens, and tokens cut by the encoder's truncation.

before (what the paper-to-paper methods encoded):  ta, section (whole sections: `sciembed index
--view section`), segment (PRISM's 3,000-token segments), fulltext (f2f), extractive queries of
250 words (PRISM's budget).
after: section pieces (every section split at sentence boundaries: nothing cut), extractive queries
of 177 words (0.7 × 254), and the cheaper index of configs/p2p-acl.yaml (each section's first piece,
4 sections per paper): nothing is cut inside a view, but body tokens outside the kept pieces are
never read — counted as ``body_tokens_not_read``.

    nice .venv/bin/python benchmarks/p2p_truncation.py --corpus INGESTED_ACL
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from transformers import AutoTokenizer

from sciembed.corpus.layout import CorpusDir
from sciembed.models.loading import offline_package_path
from sciembed.search.prism.aspects import extractive_queries
from sciembed.views.fit import encoder_budget, section_pieces, truncation_row
from sciembed.views.segment import segment_views
from sciembed.views.simple import full_text, section_view, ta_text
from sciembed.views.tokens import tokenizer_counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--max-seq-length", type=int, default=256)
    parser.add_argument("--sample", type=int, default=0, help="Seeded sample of this many papers (0: all).")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "p2p_truncation_acl.json")
    args = parser.parse_args()
    start = time.perf_counter()
    count = tokenizer_counter(AutoTokenizer.from_pretrained(str(offline_package_path())))
    budget = encoder_budget(args.max_seq_length)
    papers = sorted(CorpusDir(args.corpus).iter_papers(), key=lambda p: p.id)
    if args.sample and args.sample < len(papers):
        keep = set(np.random.default_rng(args.seed).choice(len(papers), args.sample, replace=False).tolist())
        papers = [p for i, p in enumerate(papers) if i in keep]
    fit_words = int(budget * 0.7)
    before = {
        "ta": [ta_text(p) for p in papers],
        "section": [section_view(p, i).text for p in papers for i, s in enumerate(p.sections) if s.text.strip()],
        "segment_3000": [v.text for p in papers for v in segment_views(p, 3000)],
        "fulltext": [full_text(p) for p in papers],
        "extractive_query_250w": [t for p in papers for a, t in extractive_queries(p, 250).queries.items()
                                  if a != "abstract"],
    }
    rows = {kind: truncation_row(kind, texts, budget, count).to_dict() for kind, texts in before.items()}
    pieces = [v.text for p in papers for v in section_pieces(p, budget, count)]
    kept = [v.text for p in papers for v in section_pieces(p, budget, count, per_section=1, sections=4)]
    after = {
        "section_pieces": truncation_row("section_pieces", pieces, budget, count).to_dict(),
        f"extractive_query_{fit_words}w": truncation_row(
            f"extractive_query_{fit_words}w", [t for p in papers for a, t in extractive_queries(p, fit_words)
                                              .queries.items() if a != "abstract"], budget, count).to_dict(),
        "section_pieces_first_of_4_sections": truncation_row("section_pieces_first_of_4_sections", kept, budget,
                                                             count).to_dict(),
    }
    body_tokens = after["section_pieces"]["tokens"]
    after["section_pieces_first_of_4_sections"]["body_tokens_not_read"] = (
        body_tokens - after["section_pieces_first_of_4_sections"]["tokens"])
    after["section_pieces_first_of_4_sections"]["share_body_not_read"] = (
        1 - after["section_pieces_first_of_4_sections"]["tokens"] / body_tokens)
    result = {"corpus": str(args.corpus), "papers": len(papers), "sample": args.sample or None, "seed": args.seed,
              "max_seq_length": args.max_seq_length,
              "budget_tokens": budget, "before": rows, "after": after,
              "seconds": time.perf_counter() - start}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    for part in ("before", "after"):
        for kind, row in result[part].items():
            print(f"{part:6s} {kind:36s} views {row['views']:7d} over {100 * row['share_over_budget']:5.1f}%  "
                  f"tokens cut {100 * row['share_tokens_cut']:5.1f}%")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
