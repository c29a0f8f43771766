"""Funnel config: YAML in, CLI flags over it, every bad setting named."""

from __future__ import annotations

import pytest

from sciembed.corpus.config import ConfigError, FunnelConfig


def test_yaml_then_overrides(tmp_path):
    path = tmp_path / "funnel.yaml"
    path.write_text("max_degree: 50\ndomain_cap: 1000\ntest_size: 500\nval_size: 0.05\nvenue_filter: false\n")
    config = FunnelConfig.from_yaml(path)
    assert (config.max_degree, config.domain_cap, config.test_size, config.val_size) == (50, 1000, 500, 0.05)
    assert isinstance(config.test_size, int) and not config.venue_filter and config.seed == 0
    changed = config.override(max_degree=7, seed=None, test_size=0.2)
    assert (changed.max_degree, changed.domain_cap, changed.seed, changed.test_size) == (7, 1000, 0, 0.2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_degre: 5\n", r"1 invalid setting\(s\): max_degre: Extra inputs are not permitted"),
        ("test_size: 1.5\n", "a fraction must be in \\[0, 1\\); got 1.5"),
        ("val_size: -2\n", "a paper count must be >= 0; got -2"),
        ("max_degree: 0\n", "max_degree: Input should be greater than or equal to 1"),
        ("- a\n- b\n", "must be a mapping, got list"),
    ],
)
def test_bad_settings_name_the_file_and_the_key(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        FunnelConfig.from_yaml(path)
    assert str(path) in str(info.value)


def test_s2full_funnel_holds_out_the_papers_two_percent_for_validation():
    """Issue 32, item 9: 2,279 steps × 2,048 = 4.667M training pairs of 4.763M: ~2% validation, not 10%."""
    from pathlib import Path

    config = FunnelConfig.from_yaml(Path(__file__).resolve().parents[2] / "configs" / "funnel-s2full.yaml")
    assert config.val_size == 0.02
    assert abs(1 - 2279 * 2048 / 4_763_000 - config.val_size) < 0.003
    assert config.test_size == 0.024 and config.min_test_anchors == 0
