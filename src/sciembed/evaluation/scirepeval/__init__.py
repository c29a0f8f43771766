"""SciRepEval (Singh et al., 2023): its task list, loader and the papers' aggregation."""

from sciembed.evaluation.scirepeval.aggregate import aggregate, task_score
from sciembed.evaluation.scirepeval.loader import load_scirepeval

__all__ = ["aggregate", "load_scirepeval", "task_score"]
