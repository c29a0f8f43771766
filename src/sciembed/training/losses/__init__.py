"""One `torch.nn.Module` per loss, the sentence-transformers way: ``loss(model, …)``, ``forward(features, labels)``."""
