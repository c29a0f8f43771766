"""Batch plans: self-alignment share, paper uniqueness, strategy constraints, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.training.composition import composition
from sciembed.training.config import STRATEGIES
from sciembed.training.pairs import TA
from sciembed.training.plan import PlanError, plan_batches, self_slots, steps_per_epoch


def random_graph(n_papers: int = 80, n_pairs: int = 300, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    pairs = set()
    while len(pairs) < n_pairs:
        a, b = sorted(rng.choice(n_papers, 2, replace=False).tolist())
        pairs.add((a, b))
    n_body = rng.integers(0, 5, n_papers)  # about one in five papers TA-only
    return np.array(sorted(pairs)), n_body


def make_plan(strategy: str = "both_random", batch_size: int = 20, share: float = 0.2, epochs: int = 2, seed: int = 0):
    pairs, n_body = random_graph()
    return plan_batches(
        pairs, n_body, strategy=strategy, batch_size=batch_size, self_share=share, epochs=epochs, seed=seed
    ), pairs, n_body


def batches(plan, name):
    return getattr(plan, name).reshape(-1, plan.batch_size)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("batch_size", "share"), [(20, 0.2), (15, 0.2), (12, 0.25)])
def test_self_share_is_exact_in_every_batch(strategy, batch_size, share):
    plan, _, n_body = make_plan(strategy, batch_size, share)
    per_batch = batches(plan, "is_self").sum(axis=1)
    assert plan.n_batches > 3
    assert (per_batch == self_slots(batch_size, share)).all()
    if share * batch_size == int(share * batch_size):
        assert (per_batch / batch_size == share).all()
    # self pairs: same paper, two distinct views, papers with a body only
    s = plan.is_self
    assert (plan.anchor_paper[s] == plan.positive_paper[s]).all()
    assert (plan.anchor_view[s] != plan.positive_view[s]).all()
    assert (n_body[plan.anchor_paper[s]] > 0).all()
    # citation pairs join two different papers
    assert (plan.anchor_paper[~s] != plan.positive_paper[~s]).all()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_no_paper_twice_in_a_batch(strategy):
    plan, _, _ = make_plan(strategy, batch_size=30)
    for a, p, s in zip(batches(plan, "anchor_paper"), batches(plan, "positive_paper"), batches(plan, "is_self"),
                       strict=True):
        papers = [*a.tolist(), *p[~s].tolist()]  # a self pair's positive is its anchor's paper
        assert len(papers) == len(set(papers))


def test_every_pair_once_per_epoch_up_to_dropped_tail():
    pairs, n_body = random_graph()
    plan = plan_batches(pairs, n_body, strategy="both_random", batch_size=20, self_share=0.2, epochs=3, seed=0,
                        self_align="on_top")
    known = {tuple(p) for p in pairs.tolist()}
    start = 0
    for n_batches, dropped in zip(plan.epoch_batches, plan.dropped_pairs, strict=True):
        rows = slice(start * plan.batch_size, (start + n_batches) * plan.batch_size)
        cite = ~plan.is_self[rows]
        seen = [tuple(sorted(x)) for x in zip(plan.anchor_paper[rows][cite], plan.positive_paper[rows][cite],
                                              strict=True)]
        assert len(seen) == len(set(seen))  # no pair twice within an epoch
        assert set(seen) <= known
        assert len(seen) + dropped == len(pairs)  # placed + dropped = read
        start += n_batches


def test_strategy_view_constraints():
    ta_ta, _, _ = make_plan("ta_ta")
    c = ~ta_ta.is_self
    assert (ta_ta.anchor_view[c] == TA).all() and (ta_ta.positive_view[c] == TA).all()

    pos_ta, _, n_body = make_plan("anchor_random_pos_ta")
    c = ~pos_ta.is_self
    assert (pos_ta.positive_view[c] == TA).all()
    assert (pos_ta.anchor_view[c] != TA).any()

    no_ta, _, n_body = make_plan("no_ta_ta", epochs=4)
    c = ~no_ta.is_self
    both_ta = c & (no_ta.anchor_view == TA) & (no_ta.positive_view == TA)
    # a TA-TA citation pair only where neither paper has a body
    assert (n_body[no_ta.anchor_paper[both_ta]] == 0).all()
    assert (n_body[no_ta.positive_paper[both_ta]] == 0).all()

    rand, _, n_body = make_plan("both_random", epochs=4)
    c = ~rand.is_self
    for paper, view in ((rand.anchor_paper, rand.anchor_view), (rand.positive_paper, rand.positive_view)):
        assert (view[c] <= n_body[paper[c]]).all()  # only views that exist
    comp = composition(rand)["citation"]["counts"]
    assert all(comp[t] > 0 for t in ("ta-ta", "ta-body", "body-ta", "body-body"))


def test_views_are_valid_for_every_strategy():
    for strategy in STRATEGIES:
        plan, _, n_body = make_plan(strategy)
        for paper, view in ((plan.anchor_paper, plan.anchor_view), (plan.positive_paper, plan.positive_view)):
            assert ((view >= 0) & (view <= n_body[paper])).all()


def test_same_seed_same_plan_new_windows_each_epoch():
    a, _, _ = make_plan(seed=3)
    b, _, _ = make_plan(seed=3)
    c, _, _ = make_plan(seed=4)
    for name, col in a.columns().items():
        assert np.array_equal(col, b.columns()[name])
    assert not np.array_equal(a.anchor_paper, c.anchor_paper)
    first = a.epoch_batches[0] * a.batch_size
    assert not np.array_equal(a.anchor_paper[:first], a.anchor_paper[first : 2 * first])


def test_composition_counts_add_up():
    plan, _, _ = make_plan()
    comp = composition(plan)
    assert comp["citation"]["pairs"] + comp["self"]["pairs"] == plan.n_slots
    assert sum(comp["self"]["counts"].values()) == comp["self"]["pairs"]
    assert comp["self"]["counts"]["ta-ta"] == 0  # two distinct views never both TA
    assert comp["self_share_min"] == comp["self_share_max"] == 0.2


def test_too_large_batch_is_refused_with_counts():
    pairs, n_body = random_graph(n_papers=30, n_pairs=40)
    with pytest.raises(PlanError, match=r"needs \d+ distinct papers; the split has 30"):
        plan_batches(pairs, n_body, strategy="both_random", batch_size=40, self_share=0.2, epochs=1, seed=0)


def test_self_alignment_needs_a_body():
    pairs, _ = random_graph()
    with pytest.raises(PlanError, match="TA-only"):
        plan_batches(pairs, np.zeros(80, int), strategy="ta_ta", batch_size=10, self_share=0.2, epochs=1, seed=0)
    plan = plan_batches(pairs, np.zeros(80, int), strategy="ta_ta", batch_size=10, self_share=0.0, epochs=1, seed=0)
    assert not plan.is_self.any()


def test_an_epoch_is_one_pass_over_the_pairs_with_self_alignment_inside():
    """300 pairs at batch 20 (16 citation + 4 self): the paper's epoch is 300 // 20 = 15 steps (S2Full:
    2,279 steps at batch 2,048); 'on_top' shows every pair once: 300 // 16 = 18 steps."""
    pairs, n_body = random_graph()
    assert steps_per_epoch(300, 20, 4) == 15 and steps_per_epoch(300, 20, 4, "on_top") == 18
    assert steps_per_epoch(4_667_000, 2048, self_slots(2048, 0.2)) == 2278  # 2,279 × 2,048 pairs ≈ one epoch
    inside = plan_batches(pairs, n_body, strategy="both_random", batch_size=20, self_share=0.2, epochs=3, seed=0)
    assert inside.epoch_batches == (15, 15, 15)
    # pairs not reached in an epoch are counted: placed + not reached = read
    assert all(15 * 16 + dropped == 300 for dropped in inside.dropped_pairs)
    on_top = plan_batches(pairs, n_body, strategy="both_random", batch_size=20, self_share=0.2, epochs=1, seed=0,
                          self_align="on_top")
    assert on_top.epoch_batches == (18,)
    few, n_body = random_graph(n_papers=80, n_pairs=30)
    with pytest.raises(PlanError, match="30 citation pairs make no full batch of 40"):
        plan_batches(few, n_body, strategy="both_random", batch_size=40, self_share=0.2, epochs=1, seed=0)


def test_anchor_is_the_smaller_id_unless_orientation_is_random():
    plan, _, _ = make_plan(epochs=2)
    c = ~plan.is_self
    assert (plan.anchor_paper[c] < plan.positive_paper[c]).all()  # index order = id order
    flipped = plan_batches(*random_graph(), strategy="both_random", batch_size=20, self_share=0.2, epochs=2, seed=0,
                           orientation="random")
    c = ~flipped.is_self
    smaller = (flipped.anchor_paper[c] < flipped.positive_paper[c]).mean()
    assert 0.35 < smaller < 0.65
    # the pair order is drawn the same way in both modes: the same pairs meet in the same batches
    assert np.array_equal(np.sort(np.stack([plan.anchor_paper, plan.positive_paper]), axis=0),
                          np.sort(np.stack([flipped.anchor_paper, flipped.positive_paper]), axis=0))


def test_prefixes_as_special_tokens(tiny_bert):
    from sciembed.training.config import ModelConfig
    from sciembed.training.model import build_model
    from sciembed.training.recipes.window import add_prefix_tokens

    model = build_model(ModelConfig(base=str(tiny_bert), max_seq_length=32))
    tokenizer = model[0].tokenizer
    before = len(tokenizer)
    assert len(tokenizer.tokenize("[TA] x")) > 2  # plain text: split into word pieces
    assert add_prefix_tokens(model, ["[TA] ", "[BODY] "]) == ["[TA]", "[BODY]"]
    assert len(tokenizer) == before + 2
    assert tokenizer.tokenize("[TA] [BODY]") == ["[TA]", "[BODY]"]
    assert model[0].auto_model.get_input_embeddings().num_embeddings >= before + 2
    assert model.encode(["[BODY] anything"]).shape[0] == 1
