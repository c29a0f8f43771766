"""SciRepEval's Paper-Reviewer Matching and S2AND as their official code scores them, on fixtures in the
release layout (tests/evaluation/fixtures/scirepeval: Hugging Face configs written one folder per config)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sciembed.evaluation.contract import TextStyle
from sciembed.evaluation.scirepeval.reviewer_matching import (
    evaluate_reviewer_matching,
    load_reviewer_matching,
    reviewer_run,
)

FIXTURES = Path(__file__).parent / "fixtures" / "scirepeval"


def test_reviewer_score_is_the_mean_of_the_three_most_similar_papers():
    """allenai/scirepeval reviewer_matching.py: np.mean(sorted(cosines, reverse=True)[:3]) per reviewer."""
    q = np.array([1.0, 0.0])
    angle = {c: np.array([c, np.sqrt(1 - c * c)]) for c in (1.0, 0.9, 0.8, 0.1, 0.95)}
    vectors = {"q": q, "p1": angle[1.0], "p2": angle[0.9], "p3": angle[0.8], "p4": angle[0.1], "s": 3 * angle[0.95]}
    run = reviewer_run(vectors, {"many": ["p4", "p1", "p3", "p2"], "one": ["s"]}, {"q": ["many", "one"]})
    assert run["q"]["many"] == pytest.approx(0.9) and run["q"]["one"] == pytest.approx(0.95)
    assert max(run["q"], key=run["q"].get) == "one"  # max-similarity would pick "many"; the top-3 mean does not


VECTORS = {"q1": (1, 0, 0, 0), "q2": (0, 1, 0, 0), "a1": (1, 0, 0, 0), "a2": (1, 0, 0, 0), "b1": (0.2, 1, 0, 0),
           "b2": (0, 1, 0, 0), "c1": (0.5, 0.3, 1, 0), "d1": (0, 0.2, 0, 1), "e1": (0, 0, 0, 1), "f1": (0, 0, 1, 1)}


def test_reviewer_matching_on_the_release_layout():
    """Hard / soft qrels, P@5 and P@10 as pytrec_eval (÷ k), the task score = their mean; a reviewer paper
    missing from the metadata is counted and left out of the profile."""
    data = load_reviewer_matching(FIXTURES, TextStyle(sep="[SEP]"))
    assert data.reviewers["r6"] == ["f1"] and data.texts["q1"].startswith("Graph neural networks for citation")
    assert " [SEP] " in data.texts["q1"]
    assert any("reviewer paper missing" in i.message() for i in data.issues)
    by_text = {text: np.asarray(VECTORS[doc], dtype=float) for doc, text in data.texts.items()}
    scores = evaluate_reviewer_matching(data, lambda texts: np.stack([by_text[t] for t in texts]))
    # q1 ranks r1 (1.0), r3, r2, …; q2 ranks r2, r3, r4, …: hard relevant r1 / r2, r3 (grade 1 counts);
    # soft r1, r3 / r2, r3, r4 — so P@5 = (1/5 + 2/5) / 2 hard and (2/5 + 3/5) / 2 soft
    assert scores == pytest.approx({"hard_P_5": 30.0, "hard_P_10": 15.0, "soft_P_5": 50.0, "soft_P_10": 25.0,
                                    "score": 30.0})


def test_b3_as_s2and_computes_it():
    """s2and.eval.b3_precision_recall_fscore: per-signature P and R averaged, F1 of the averages."""
    from sciembed.evaluation.scirepeval.s2and import b3_precision_recall_fscore

    p, r, f1 = b3_precision_recall_fscore({"A": ["1", "2", "3"], "B": ["4"]}, {"X": ["1", "2"], "Y": ["3", "4"]})
    assert (p, r) == pytest.approx((0.75, 2 / 3))
    assert f1 == pytest.approx(2 * 0.75 * (2 / 3) / (0.75 + 2 / 3))
    assert b3_precision_recall_fscore({"A": ["1", "2"]}, {"X": ["1"], "Y": ["2"]}) == pytest.approx((1.0, 0.5, 2 / 3))
    with pytest.raises(ValueError, match="cover"):
        b3_precision_recall_fscore({"A": ["1"]}, {"X": ["2"]})


def test_s2and_release_layout_split_and_embedding_only_b3(tmp_path):
    """The legacy S2AND JSON layout (<ds>/<ds>_papers.json, _signatures.json, _clusters.json), blocks by
    author_info.block, ANDData's 0.6/0.2/0.2 block split; two authors of different topics per block are
    separated by a bag-of-words embedding; the (matrix, keys) pickle ANDData loads is written."""
    import pickle
    import re

    from sciembed.evaluation.scirepeval.s2and import (
        CLUSTERER,
        evaluate_s2and,
        load_s2and,
        split_blocks,
        write_s2and_embeddings,
    )

    data = load_s2and(FIXTURES / "s2and", "qian")
    assert len(data.blocks) == 10 and all(len(s) == 4 for s in data.blocks.values())
    train, val, test = split_blocks(data.blocks)
    assert (len(train), len(val), len(test)) == (6, 2, 2)
    assert not (set(train) & set(val) or set(train) & set(test) or set(val) & set(test))
    assert split_blocks(data.blocks) == (train, val, test)  # seeded

    def bag_of_words(texts):
        out = np.zeros((len(texts), 64))
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, sum(map(ord, word)) % 64] += 1.0
        return out

    result = evaluate_s2and(data, bag_of_words)
    assert result["clusterer"] == CLUSTERER and result["blocks"] == {"train": 6, "val": 2, "test": 2}
    assert result["b3_f1"] == pytest.approx(100.0)
    constant = evaluate_s2and(data, lambda texts: np.ones((len(texts), 4)))  # one cluster per block
    assert constant["b3_recall"] == pytest.approx(100.0) and constant["b3_precision"] == pytest.approx(50.0)
    path = write_s2and_embeddings(tmp_path / "qian_model.pkl", {"101": np.array([0.1, 0.2]), "102": np.ones(2)})
    with path.open("rb") as handle:
        matrix, keys = pickle.load(handle)  # the file we just wrote
    assert keys == ["101", "102"] and matrix.dtype == np.float32 and matrix.shape == (2, 2)
