"""SSD (SciJEPA's singular spectrum deviation, sciembed's labelled reconstruction) of the base MiniLM — and of
trained models given with `--model NAME=PATH`, on the very same sample — on a small real sample: cite-prediction
triplets from the real ACL GROBID corpus, as the paper's Fig. 2 measures it (query,
positive and negative embeddings of citation triplets; the paper: 2,000 triplets, 6,000 embeddings).

The sample: `--papers` TEI files spread over the corpus (every k-th file in name order, so every venue and year is
in it; seeded choices after that); a reference is resolved to a
sample paper by its normalised title (`corpus.keys.normalize_title`); a triplet is (citing paper, a cited sample
paper, a seeded random sample paper the citing one neither cites nor is cited by), title + abstract texts. Also
recorded: SSD of every sample paper's TA vector (with `--with-sections` also of TA + its first two body sections), the
centred isotropy (`spectrum`), and a Gaussian matrix of the same shape as the isotropic reference.

    .venv/bin/python benchmarks/ssd_minilm.py --tei ../shared/data/acl-grobid/tei --papers 300 \
        --out benchmarks/results/ssd_minilm.json
    .venv/bin/python benchmarks/ssd_minilm.py --model jepa=STUDY/runs/jepa/model \
        --model jepa_lambda0=STUDY/runs/jepa_lambda0/model --out benchmarks/results/ssd_arms.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def read_sample(tei: Path, limit: int) -> list:
    from sciembed.papers.readers.records import Accepted
    from sciembed.papers.readers.tei import read

    files = sorted(tei.glob("*.tei.xml*"))
    step = max(1, len(files) // limit)
    papers = []
    for path in files[::step][:limit]:
        papers += [r.paper for r in read(path, path.name) if isinstance(r, Accepted)]
    return papers


def triplets(papers: list, max_triplets: int, seed: int) -> tuple[list[tuple[int, int, int]], int]:
    """(citing, cited, random negative) indices within the sample; and the number of in-sample links."""
    from sciembed.corpus.keys import normalize_titles

    ref_titles = sorted({ref.title for p in papers for ref in p.references if ref.title})
    key = dict(zip(ref_titles, normalize_titles(ref_titles), strict=True))
    own = normalize_titles([p.title for p in papers])
    by_title = {k: i for i, k in enumerate(own) if k}
    links: dict[int, set[int]] = {i: set() for i in range(len(papers))}
    for i, paper in enumerate(papers):
        for ref in paper.references:
            j = by_title.get(key[ref.title]) if ref.title else None
            if j is not None and j != i:
                links[i].add(j)
                links[j].add(i)
    pairs = sorted({(i, j) for i, paper in enumerate(papers) for ref in paper.references
                    if ref.title and (j := by_title.get(key[ref.title])) is not None and j != i})
    rng = np.random.default_rng(seed)
    if len(pairs) > max_triplets:
        pairs = [pairs[k] for k in sorted(rng.choice(len(pairs), max_triplets, replace=False))]
    out = []
    for i, j in pairs:
        while True:
            k = int(rng.integers(len(papers)))
            if k != i and k not in links[i]:
                break
        out.append((i, j, k))
    return out, sum(len(v) for v in links.values()) // 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tei", type=Path, default=Path("../shared/data/acl-grobid/tei"))
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--triplets", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--with-sections", action="store_true", help="also embed each paper's first two sections")
    parser.add_argument("--model", action="append", default=[], metavar="NAME=PATH",
                        help="Also a trained model (repeatable), on the same sample.")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/ssd_minilm.json"))
    args = parser.parse_args()

    from sciembed.evaluation.geometry import singular_spectrum_deviation, spectrum
    from sciembed.models import load_encoder

    t0 = time.perf_counter()
    papers = read_sample(args.tei, args.papers)
    read_s = time.perf_counter() - t0
    print(f"read {len(papers)} papers in {read_s:.0f} s", file=sys.stderr, flush=True)
    trips, n_links = triplets(papers, args.triplets, args.seed)
    texts = [f"{p.title}. {p.abstract or ''}".strip() for p in papers]
    sections = [s.text for p in papers for s in p.sections[:2] if s.text.strip()] if args.with_sections else []
    stacked_rows = [t[c] for c in range(3) for t in trips]  # queries, then positives, then negatives
    models = {"minilm": None, **dict(m.split("=", 1) for m in args.model)}
    result = {
        "what": "SSD of the base MiniLM (sentence-transformers/all-MiniLM-L6-v2, bundled) and of the models given, on "
                "real ACL cite triplets; SSD is sciembed's reconstruction of SciJEPA's metric (1 - H(p)/ln min(n, d), "
                "uncentred, rows normalised), not the paper's code",
        "source": str(args.tei), "papers_read": len(papers), "in_sample_links": n_links,
        "triplets": len(trips), "embeddings": 3 * len(trips), "seed": args.seed, "sections": len(sections),
        "models": {},
    }
    for name, path in models.items():
        encoder = load_encoder(path)
        t1 = time.perf_counter()
        ta = encoder.encode(texts, show_progress=False)
        body = encoder.encode(sections, show_progress=False) if sections else np.zeros((0, ta.shape[1]))
        encode_s = time.perf_counter() - t1
        print(f"{name}: encoded {len(texts)} + {len(sections)} texts in {encode_s:.0f} s", file=sys.stderr, flush=True)
        stacked = ta[stacked_rows] if trips else np.zeros((0, ta.shape[1]))
        gaussian = np.random.default_rng(args.seed).normal(size=stacked.shape if len(stacked) else ta.shape)
        result["models"][name] = {
            "model": path or "sentence-transformers/all-MiniLM-L6-v2 (bundled)", "dim": int(ta.shape[1]),
            "ssd_triplets": singular_spectrum_deviation(stacked) if len(stacked) else None,
            "ssd_all_ta": singular_spectrum_deviation(ta),
            "ssd_ta_and_sections": singular_spectrum_deviation(np.concatenate([ta, body])) if sections else None,
            "isotropy_centred_triplets": spectrum(stacked)["isotropy"] if len(stacked) else None,
            "ssd_gaussian_reference": singular_spectrum_deviation(gaussian),
            "encode_s": round(encode_s, 1),
        }
    result["read_s"] = round(read_s, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
