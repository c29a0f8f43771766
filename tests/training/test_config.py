"""Recipe configs: the shipped YAMLs validate; typos, wrong types and bad strategies fail with one message."""

from __future__ import annotations

from pathlib import Path

import pytest

from sciembed.training.config import (
    ConfigError,
    WindowConfig,
    config_diff,
    load_config,
    parse_overrides,
)

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("window-*.yaml")), ids=lambda p: p.name)
def test_shipped_window_configs_validate(path):
    config = load_config(WindowConfig, path)
    assert config.recipe == "window"
    assert config.training.mini_batch_size <= config.training.batch_size


def test_paper_config_uses_cached_mnrl_with_a_large_batch():
    config = load_config(WindowConfig, CONFIGS / "window-minilm.yaml")
    assert config.training.loss == "cached_mnrl"
    assert config.training.batch_size >= 16 * config.training.mini_batch_size
    assert config.model.projection is not None and config.model.projection.out == 4096


def test_both_shipped_configs_exist():
    assert {p.name for p in CONFIGS.glob("window-*.yaml")} >= {"window-minilm.yaml", "window-demo.yaml",
                                                               "window-scibert.yaml", "window-modernbert.yaml"}


def test_paper_model_configs_and_defaults():
    scibert = load_config(WindowConfig, CONFIGS / "window-scibert.yaml")
    assert (scibert.model.base, scibert.model.max_seq_length) == ("allenai/scibert_scivocab_uncased", 512)
    assert (scibert.training.batch_size, scibert.training.mini_batch_size, scibert.training.epochs) == (2048, 128, 3)
    assert scibert.model.projection.hidden == scibert.model.projection.out == 4096
    modern = load_config(WindowConfig, CONFIGS / "window-modernbert.yaml")
    assert (modern.model.base, modern.model.max_seq_length) == ("answerdotai/ModernBERT-base", 1024)
    assert modern.training.max_steps == 4190
    # no config: the paper's set-up except the base model
    default = load_config(WindowConfig)
    assert default.model.base is None and default.model.max_seq_length == 512
    assert default.model.projection is not None and default.model.projection.out == 4096
    assert (default.training.batch_size, default.training.mini_batch_size, default.training.epochs) == (2048, 128, 3)
    assert (default.data.self_align, default.data.orientation, default.data.self_align_share) == ("inside", "sorted",
                                                                                                   0.2)


def test_overrides_reach_nested_keys_and_parse_yaml_scalars(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("recipe: window\ntraining:\n  batch_size: 64\n")
    overrides = parse_overrides(["training.batch_size=128", "model.projection=null", "data.strategy=ta_ta"])
    config = load_config(WindowConfig, path, overrides)
    assert config.training.batch_size == 128
    assert config.model.projection is None
    assert config.data.strategy == "ta_ta"


def test_unknown_key_and_wrong_type_reported_together(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("recipe: window\ntraining:\n  batch_sise: 64\n  epochs: many\n")
    with pytest.raises(ConfigError) as err:
        load_config(WindowConfig, path)
    message = str(err.value)
    assert str(path) in message and "2 problems" in message
    assert "training.batch_sise: unknown key" in message
    assert "training.epochs" in message and "'many'" in message


def test_unknown_strategy_names_the_choices():
    with pytest.raises(ConfigError, match=r"data.strategy: .*'both_random'.*'no_ta_ta'.*got 'random_both'"):
        load_config(WindowConfig, None, {"data.strategy": "random_both"})


def test_bad_override_syntax_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="expected key=value"):
        parse_overrides(["training.batch_size"])
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(WindowConfig, tmp_path / "nope.yaml")
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config(WindowConfig, tmp_path / "list.yaml")


def test_config_diff_lists_dotted_changes():
    a = WindowConfig().model_dump(mode="json")
    b = load_config(WindowConfig, None, {"training.batch_size": 64, "seed": 3}).model_dump(mode="json")
    assert config_diff(a, b) == ["seed: 0 -> 3", "training.batch_size: 2048 -> 64"]
