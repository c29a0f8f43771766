"""Training losses, one `torch.nn.Module` per file, written the way sentence-transformers writes
losses (``forward(sentence_features, labels)``, ``get_config_dict``, ``citation``).

Imports are plain and one per line so branches that add a loss merge without conflicts.
"""

from sciembed.training.losses.infonce import SectionInfoNCELoss
from sciembed.training.losses.predictive import PredictiveLoss
from sciembed.training.losses.semcse_triplet import SemCSETripletLoss, semcse_triplet_loss
from sciembed.training.losses.sigreg import SIGReg

__all__ = [
    "PredictiveLoss",
    "SIGReg",
    "SectionInfoNCELoss",
    "SemCSETripletLoss",
    "semcse_triplet_loss",
]
