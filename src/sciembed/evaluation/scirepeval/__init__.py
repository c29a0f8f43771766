"""SciRepEval (Singh et al., 2023): its task list, loader and the papers' aggregation."""

from sciembed.evaluation.scirepeval.aggregate import aggregate, task_score
from sciembed.evaluation.scirepeval.loader import SciRepEvalBenchmark, load_scirepeval
from sciembed.evaluation.scirepeval.tasks import TASKS, TaskDef

__all__ = ["TASKS", "SciRepEvalBenchmark", "TaskDef", "aggregate", "load_scirepeval", "task_score"]
