"""Linear probes on frozen embeddings (scikit-learn), with SciRepEval's protocol.

Classification: a linear SVM, C by 3-fold grid search, one SVM per label (one-vs-rest) for multi-label tasks;
F1, macro F1 or accuracy. Regression: a linear SVR, Kendall τ and Pearson r. Few-shot: multi-class tasks train on
each ``StratifiedKFold(n_splits = ceil(n / sample_size))`` fold in turn (no grid search); multi-label tasks draw
`sample_size` positives per label with seed + iteration. Scores ×100. SciRepEval fits with `lightning`'s
LinearSVC/LinearSVR, the same liblinear models; see docs/benchmarks/bench.md.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from sciembed.evaluation.contract import ProbeTask
from sciembed.evaluation.issues import BenchmarkError

CLASSIFIER_CS = np.logspace(-2, 2, 5)
REGRESSOR_CS = np.logspace(-4, 2, 7)
GRID_CV = 3
CLASSIFICATION_METRICS = ("f1", "f1_macro", "accuracy")
REGRESSION_METRICS = ("kendalltau", "pearsonr")


class ProbeError(BenchmarkError):
    """A probe that cannot be fitted (one class in a training set, too few examples)."""


def _check_classes(task: str, y: np.ndarray, where: str, multi_label: bool) -> None:
    if multi_label:
        empty = np.flatnonzero(y.sum(axis=0) == 0)
        full = np.flatnonzero(y.sum(axis=0) == len(y))
        if len(empty) or len(full):
            raise ProbeError(f"classification task {task}: {where} has {len(empty) + len(full)} label(s) with a "
                             f"single class (every example in, or none); a one-vs-rest SVM cannot be fitted")
    elif len(np.unique(y)) < 2:
        raise ProbeError(f"classification task {task}: {where} holds a single class ({y[0]!r}, {len(y)} examples); "
                         "a classifier needs at least two")


def make_classifier(*, multi_label: bool, grid: bool, seed: int) -> Any:
    from sklearn.model_selection import GridSearchCV
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    if multi_label:
        inner = GridSearchCV(LinearSVC(max_iter=10000, random_state=seed), {"C": CLASSIFIER_CS}, cv=GRID_CV) \
            if grid else LinearSVC(max_iter=10000, random_state=seed)
        return OneVsRestClassifier(inner)
    base = LinearSVC(loss="squared_hinge", max_iter=10000, random_state=seed)
    return GridSearchCV(base, {"C": CLASSIFIER_CS}, cv=GRID_CV) if grid else base


def fit_classifier(x: np.ndarray, y: np.ndarray, *, multi_label: bool, grid: bool, seed: int) -> Any:
    model = make_classifier(multi_label=multi_label, grid=grid, seed=seed)
    with warnings.catch_warnings():  # liblinear's convergence and sklearn's small-class warnings: scores still defined
        warnings.simplefilter("ignore")
        model.fit(x, y)
    return model


def classification_score(y_true: np.ndarray, y_pred: np.ndarray, metric: str) -> float:
    from sklearn.metrics import accuracy_score, f1_score

    if metric == "accuracy":
        return 100.0 * float(accuracy_score(y_true, y_pred))
    average = "macro" if metric == "f1_macro" else "binary"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return 100.0 * float(f1_score(y_true, y_pred, average=average, zero_division=0))


def regression_scores(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    from scipy.stats import kendalltau, pearsonr

    if np.std(y_pred) == 0 or np.std(y_true) == 0:
        return {"kendalltau": 0.0, "pearsonr": 0.0}
    return {"kendalltau": 100.0 * float(kendalltau(y_true, y_pred)[0]),
            "pearsonr": 100.0 * float(pearsonr(y_true, y_pred)[0])}


def _matrix(vectors: Mapping[str, np.ndarray], ids: list[str]) -> np.ndarray:
    return np.stack([vectors[i] for i in ids]).astype(np.float64)


def _labels(task: ProbeTask, ids: list[str], classes: list[Any] | None) -> np.ndarray:
    if task.multi_label:
        assert classes is not None
        index = {c: j for j, c in enumerate(classes)}
        y = np.zeros((len(ids), len(classes)), dtype=int)
        for row, i in enumerate(ids):
            for label in task.labels[i]:
                y[row, index[label]] = 1
        return y
    return np.array([task.labels[i] for i in ids])


def run_classification(task: ProbeTask, vectors: Mapping[str, np.ndarray]) -> dict[str, float]:
    """`{metric: full-data score, "<metric>@<n>shot": few-shot mean, ...}`."""
    if task.metric not in CLASSIFICATION_METRICS:
        raise ValueError(f"{task.name}: classification metric {task.metric!r}; expected {CLASSIFICATION_METRICS}")
    everyone = task.train_ids + (task.test_ids or [])
    classes = sorted({c for i in everyone for c in task.labels[i]}, key=str) if task.multi_label else None
    x_train, y_train = _matrix(vectors, task.train_ids), _labels(task, task.train_ids, classes)
    _check_classes(task.name, y_train, "the training set", task.multi_label)
    if task.test_ids is None:
        from sklearn.model_selection import StratifiedKFold, cross_val_predict

        folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=task.seed)
        model = make_classifier(multi_label=task.multi_label, grid=True, seed=task.seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = cross_val_predict(model, x_train, y_train, cv=folds)
        return {task.metric: classification_score(y_train, pred, task.metric)}
    x_test, y_test = _matrix(vectors, task.test_ids), _labels(task, task.test_ids, classes)
    model = fit_classifier(x_train, y_train, multi_label=task.multi_label, grid=True, seed=task.seed)
    out = {task.metric: classification_score(y_test, model.predict(x_test), task.metric)}
    for size, iterations in task.few_shot:
        scores = [classification_score(y_test, pred, task.metric)
                  for pred in _few_shot_predictions(task, x_train, y_train, x_test, size, iterations)]
        out[f"{task.metric}@{size}shot"] = float(np.mean(scores))
    return out


def _few_shot_predictions(task: ProbeTask, x: np.ndarray, y: np.ndarray, x_test: np.ndarray, size: int,
                          iterations: int) -> list[np.ndarray]:
    preds: list[np.ndarray] = []
    if task.multi_label:
        for k in range(iterations):
            rng = np.random.default_rng(task.seed + k)
            rows: set[int] = set()
            for label in range(y.shape[1]):
                positives = np.flatnonzero(y[:, label] == 1)
                rows.update(rng.choice(positives, min(size, len(positives)), replace=False).tolist())
            picked = sorted(rows)
            model = fit_classifier(x[picked], y[picked], multi_label=True, grid=False, seed=task.seed)
            preds.append(model.predict(x_test))
        return preds
    from sklearn.model_selection import StratifiedKFold

    splits = max(2, math.ceil(len(x) / size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes smaller than n_splits: sklearn warns, the folds are still made
        for count, (_, small) in enumerate(StratifiedKFold(n_splits=splits).split(x, y), 1):
            _check_classes(task.name, y[small], f"few-shot fold {count} ({size} per fold)", False)
            model = fit_classifier(x[small], y[small], multi_label=False, grid=False, seed=task.seed)
            preds.append(model.predict(x_test))
            if count == iterations:
                break
    return preds


def run_regression(task: ProbeTask, vectors: Mapping[str, np.ndarray]) -> dict[str, float]:
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import LinearSVR

    if task.metric not in REGRESSION_METRICS:
        raise ValueError(f"{task.name}: regression metric {task.metric!r}; expected {REGRESSION_METRICS}")
    if task.test_ids is None:
        raise ProbeError(f"regression task {task.name} needs a test split")
    x_train = _matrix(vectors, task.train_ids)
    y_train = np.array([float(task.labels[i]) for i in task.train_ids])
    x_test = _matrix(vectors, task.test_ids)
    y_test = np.array([float(task.labels[i]) for i in task.test_ids])
    if len(x_train) < GRID_CV:
        raise ProbeError(f"regression task {task.name}: {len(x_train)} training examples, need at least {GRID_CV}")
    model = GridSearchCV(LinearSVR(random_state=task.seed, max_iter=10000), {"C": REGRESSOR_CS}, cv=GRID_CV)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(x_train, y_train)
    return regression_scores(y_test, model.predict(x_test))


def run_probe(task: ProbeTask, vectors: Mapping[str, np.ndarray]) -> dict[str, float]:
    return run_classification(task, vectors) if task.kind == "classification" else run_regression(task, vectors)


def probe_task_score(metrics: Mapping[str, float], metric: str) -> float:
    """A probe task's single number: few-shot variants averaged first, then averaged with the full-data score."""
    shots = [v for k, v in metrics.items() if k.startswith(f"{metric}@") and k.endswith("shot")]
    full = metrics[metric]
    return (full + float(np.mean(shots))) / 2 if shots else full
