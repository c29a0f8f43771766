"""PRISM (Park et al. 2025): multi-aspect queries from a full paper, fused by RRF over segment and abstract indexes.

    queries = extractive_queries(paper)                  # or LLM aspect agents (sciembed.search.prism.agents)
    index = PrismIndex.build(papers, encoder)            # abstract vectors + ~3,000-token segments
    result = index.search(queries, encoder)              # fused ranking, which aspect found each hit
"""

from sciembed.search.prism.aspects import Aspect, QuerySet, extractive_queries
from sciembed.search.prism.index import PrismIndex
from sciembed.search.prism.queries import read_query_sets, write_query_sets

__all__ = ["Aspect", "PrismIndex", "QuerySet", "extractive_queries", "read_query_sets", "write_query_sets"]
