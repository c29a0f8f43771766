"""What a recipe learns from: citation pairs, section pairs, triplets, summaries."""
