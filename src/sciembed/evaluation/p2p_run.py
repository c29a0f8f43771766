"""Every paper-to-paper method on one `PaperToPaperBenchmark`, in one run, with one encoding pass.

Methods (query side → candidate side, aggregation):

=====================  ==========================================================================================
a2a                    query title+abstract → candidate abstracts
f2f                    query full text → candidate full texts (both truncated by the encoder)
a2c / f2c              query abstract / full text → candidate segments, a paper's best segment
naive_sum              PRISM's queries (aspects + abstract) → segments, sum over all pairs
max_sim                PRISM's queries → segments, the best (query, segment) pair
max_sim_prism_code     PRISM's released code: per query the *worst* segment, summed (reproduction)
late                   late interaction over encoder-sized views (TA + section pieces, `views.fit`): for every
                       query view its best candidate view, averaged (``sciembed search --method late``)
late_interaction       the same over TA + PRISM segments (a 256-token encoder reads only their first 256 tokens)
prism_extractive       PRISM: extractive aspect queries → segments, abstract → abstracts, RRF; segments are
                       encoder-sized pieces unless `prism_views: segments`
prism_extractive_paper PRISM's extractive run as the paper: 3,000-token segments, every segment hit counted
prism_llm              PRISM with LLM aspect queries from a queries file (every sample, mean ± std)
bm25                   query full text → candidate full texts, BM25 (bm25s)
hybrid                 RRF of bm25 and a dense method (`hybrid_dense`, default a2a)
fused                  a learned fusion (`FusionSpec`) of `fuse_runs` (default bm25, a2a, late), tuned on val
=====================  ==========================================================================================

"Segments" are encoder-sized pieces (`prism_views: pieces`, the default) or PRISM's segments. Every ranking holds
`top_k` (300) papers, never the query paper (by id or normalised title); each (method, relevance split) is a
ranking task of the one executor, scored over the top `top_k` plus `P2P_METRICS`. The code is split along the
run's stages: `p2p_config` (methods, `P2PConfig`), `p2p_views` (texts planned and encoded once), `p2p_rankers`
(each method as a run of the one paper search), `p2p_evaluate` (`rank_methods`, and ``fused``: `tune_p2p_fusion`).
"""

from sciembed.evaluation.p2p_config import (
    ALL_METHODS,
    FUSIONS,
    METHODS,
    OFFLINE_METHODS,
    P2P_LABELS,
    P2P_METRICS,
    PAPER_QUERY_WORDS,
    PRISM_VIEWS,
    P2PConfig,
    load_p2p_config,
)
from sciembed.evaluation.p2p_evaluate import MethodRankings, rank_methods, tune_p2p_fusion
from sciembed.evaluation.p2p_views import encoder_token_counter

__all__ = [
    "ALL_METHODS", "FUSIONS", "METHODS", "OFFLINE_METHODS", "P2P_LABELS", "P2P_METRICS", "PAPER_QUERY_WORDS",
    "PRISM_VIEWS", "MethodRankings", "P2PConfig", "encoder_token_counter", "load_p2p_config", "rank_methods",
    "tune_p2p_fusion",
]
