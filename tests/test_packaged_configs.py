"""Issue 34: the configs the demo and the studies read ship as package data, one copy, found without the checkout."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sciembed.experiments.demo import DEMO_TRAIN_CONFIG
from sciembed.ioutil.yaml_config import packaged_config

ROOT = Path(__file__).resolve().parents[1]


def test_the_repository_configs_are_the_package_data_one_copy() -> None:
    assert (ROOT / "configs").is_symlink()  # the user-facing path leads to the package's folder, not a copy
    assert (ROOT / "configs").resolve() == (ROOT / "src" / "sciembed" / "configs").resolve()
    assert packaged_config("study-real.yaml").resolve() == (ROOT / "configs" / "study-real.yaml").resolve()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "configs/*.yaml" in package_data["sciembed"]  # in the wheel


def test_the_demo_and_the_real_study_find_their_configs_in_the_package() -> None:
    from sciembed.experiments.real_study import load_real_study

    assert DEMO_TRAIN_CONFIG.is_file() and DEMO_TRAIN_CONFIG.parent.name == "configs"
    study = load_real_study(packaged_config("study-real.yaml"))
    assert all(arm.config is None or arm.config.is_file() for arm in study.arms.values())
