"""One nn.Module per training loss, the sentence-transformers way (``forward(features, labels)``)."""

from sciembed.training.losses.semcse_triplet import SemCSETripletLoss, semcse_triplet_loss

__all__ = ["SemCSETripletLoss", "semcse_triplet_loss"]
