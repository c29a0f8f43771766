"""SciRepEval (Singh et al., 2023): its task list, loader and the papers' aggregation."""

from sciembed.evaluation.scirepeval.loader import aggregate, load_scirepeval, task_score

__all__ = ["aggregate", "load_scirepeval", "task_score"]
