"""What recipes learn from: citation pairs, section pairs, triplets, summaries."""
