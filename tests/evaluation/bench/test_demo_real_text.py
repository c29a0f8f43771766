"""The demo's real-text check: base vs trained on SciTLDR-shaped data, a few lines under the table."""

from __future__ import annotations

import json

import numpy as np

from sciembed.experiments.demo import _real_text_check, real_text_lines


def test_real_text_check_compares_base_and_trained(tmp_path, keyword_encoder):
    words = ["alpha", "beta", "gamma", "delta"]
    src = tmp_path / "dev.jsonl"
    src.write_text("".join(json.dumps({"paper_id": f"p{i}", "title": f"{w} title", "source": [f"{w} one.", f"{w} two."],
                                       "target": [f"{w} tldr"]}) + "\n" for i, w in enumerate(words)))
    blind = type(keyword_encoder)({w: np.array([1.0, 0.0, 0.0], np.float32) for w in words}, name="blind")
    out = _real_text_check(src, tmp_path / "scitldr", {"base": keyword_encoder, "trained": blind})
    assert set(out) == {"tldr2paper", "title2abstract", "half2half"}
    assert out["tldr2paper"]["base"] == 100.0  # each query's first word finds its own paper
    assert out["tldr2paper"]["trained"] < 100.0  # every text on one point: ties, broken by id
    lines = real_text_lines(out)
    assert lines[0].startswith("real text (SciTLDR dev") and "→" in lines[1] and len(lines) == 4
