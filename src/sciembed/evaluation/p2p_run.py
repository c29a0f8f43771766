"""Every paper-to-paper method on one `PaperToPaperBenchmark`, in one run, with one encoding pass.

Methods (query side → candidate side, aggregation):

=====================  ==========================================================================
a2a                    query title+abstract → candidate abstracts
f2f                    query full text → candidate full texts (both truncated by the encoder)
a2c / f2c              query abstract / full text → candidate segments, a paper's best segment
naive_sum              PRISM's queries (aspects + abstract) → segments, sum over all pairs
max_sim                PRISM's queries → segments, the best (query, segment) pair
max_sim_prism_code     PRISM's released code: per query the *worst* segment, summed (reproduction)
late                   late interaction over views that fit the encoder: query views (TA + section
                       pieces, `sciembed.views.fit`) → candidate views (the same kinds); for every
                       query view its best candidate view, averaged over the query's views (what
                       `sciembed search --method late` does over a `--view section` index)
late_interaction       the same over TA + PRISM segments (a 256-token encoder reads each segment's
                       first 256 tokens only: kept to show what sizing the views gains)
prism_extractive       PRISM: extractive aspect queries → candidate segments, abstract → abstracts,
                       RRF; segments are encoder-sized pieces unless `prism_views: segments`
prism_extractive_paper PRISM's extractive run exactly as the paper: 3,000-token segments, every
                       segment hit counted, 250-word queries, whatever the encoder reads
prism_llm              PRISM with LLM aspect queries from a queries file (every sample, mean ± std)
bm25                   query full text → candidate full texts, BM25 (bm25s)
hybrid                 RRF of bm25 and a dense method (`hybrid_dense`, default a2a)
fused                  a learned fusion of `fuse_runs` (default bm25, a2a, late): a
                       `sciembed.search.learned_fusion.FusionSpec` tuned on a validation split
=====================  ==========================================================================

Candidate "segments" of a2c, f2c, naive_sum, max_sim and PRISM are encoder-sized
pieces (`prism_views: pieces`, the default) or PRISM's segments (`segments`).

Every ranking holds `top_k` (300) papers; the query paper (by id and by
normalised title) is never ranked. Each (method, relevance split) is a ranking task of the one executor
(`execute.run_task`); its metrics are the contract's over the top `top_k` (``ndcg@300``, ``map@300``, …)
plus SciFullBench's Recall@50/100/200/300, MRR@50, NDCG@10/100 (`P2P_METRICS`).

The public names live here; the code is split along the run's stages:

- `p2p_config`: the methods, metrics and `P2PConfig` (``configs/prism-*.yaml``);
- `p2p_views`: the texts the requested methods need, planned and encoded once;
- `p2p_rankers`: each method as a run of the one paper search (`search.Run`) over indexes of those views;
- `p2p_evaluate`: `rank_methods`, every method's rankings of every query paper (one encoding pass);
- `p2p_fusion`: method ``fused`` tuned on val query papers (`benchmarks.paper_to_paper` reports on test).
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
from sciembed.evaluation.p2p_evaluate import MethodRankings, rank_methods
from sciembed.evaluation.p2p_fusion import tune_p2p_fusion
from sciembed.evaluation.p2p_views import encoder_token_counter

__all__ = [
    "ALL_METHODS",
    "FUSIONS",
    "METHODS",
    "OFFLINE_METHODS",
    "P2P_LABELS",
    "P2P_METRICS",
    "PAPER_QUERY_WORDS",
    "PRISM_VIEWS",
    "MethodRankings",
    "P2PConfig",
    "encoder_token_counter",
    "load_p2p_config",
    "rank_methods",
    "tune_p2p_fusion",
]
