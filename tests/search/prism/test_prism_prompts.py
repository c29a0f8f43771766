"""PRISM's query-generation prompts verbatim (psw0021/PRISM, QueryOptimizer/Prompts/, commit d7f4dc8) and
`sciembed prism queries --scifullbench`: queries for a SciFullBench release's query papers, the agents reading
each query's raw .mmd as PRISM's `QueryOptimizer/agents.py` does."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typer.testing import CliRunner

from fakes.llm_server import FakeLLMServer
from sciembed.cli.main import app
from sciembed.llm import load_prompt
from sciembed.search.prism.agents import AGENT_PROMPTS, SINGLE_AGENT_PROMPT
from sciembed.search.prism.queries import read_query_sets

runner = CliRunner(env={"COLUMNS": "200"})
FIXTURE = Path(__file__).parents[2] / "evaluation" / "data" / "scifullbench"
# sha256 of `yaml.safe_load(file)["system_prompt"]` for each of PRISM's prompt files (the text its agents send),
# computed from psw0021/PRISM at commit d7f4dc8be848a92cf1751c2cc5c39f084a0c409a.
PRISM_SYSTEM_SHA256 = {
    "prism_research_question": "3b6c533a390640920828f5695cd11cc5da32abf69487c7d51bf5a23adb116163",
    "prism_method": "a5abebe25698563aa32961cc92e0337e21c0a4dc3d3779a9b8622e4f0de6a994",
    "prism_experiment": "0b56c022389048ab4aff97e52e9551e8bfcccfea70553031e16513c46f04e018",
    "prism_single_agent": "8fbff3d93785a00430c229fd532f56e267ad42b4e1dd325433432e6f65f13325",
}
# PRISM's user prompts: `>\n  {paper}\n` (the aspect agents: the paper and one newline), `>\n  {paper}` (base agent)
PRISM_USER_SUFFIX = {"prism_research_question": "\n", "prism_method": "\n", "prism_experiment": "\n",
                     "prism_single_agent": ""}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_the_default_prompts_are_prisms_files_verbatim():
    names = {*AGENT_PROMPTS.values(), SINGLE_AGENT_PROMPT}
    assert names == set(PRISM_SYSTEM_SHA256)
    for name in names:
        template = load_prompt(name)  # the newest version is the default
        assert template.version == 2
        system, user = template.render_messages({"paper": "PAPER TEXT"})
        assert _sha(system["content"]) == PRISM_SYSTEM_SHA256[name], name
        assert user["content"] == "PAPER TEXT" + PRISM_USER_SUFFIX[name], name
    method = load_prompt("prism_method").system or ""
    assert "used as a query to retrieve similar papers METHOD wise" in method
    assert "the paper’s approach" in method  # PRISM's typographic apostrophe kept
    assert '"method_query", "experiment_query", and "research_question_query"' in (
        load_prompt(SINGLE_AGENT_PROMPT).system or "")
    assert load_prompt("prism_method", 1).version == 1  # the earlier paraphrase stays replayable


def test_prism_queries_for_scifullbench_query_papers(tmp_path):
    out = tmp_path / "queries.jsonl"
    mmd = (FIXTURE / "Benchmark" / "Full_Papers" / "2405.00001.mmd").read_text(encoding="utf-8")
    with FakeLLMServer(embedding_dim=24).running() as server:
        result = runner.invoke(app, ["prism", "queries", str(FIXTURE), "--scifullbench", "-o", str(out),
                                     "--llm-base-url", server.url, "--llm-model", "fake-model"])
        assert result.exit_code == 0, result.output
        sets = read_query_sets(out)
        assert sorted(sets) == [("2405.00001", 0), ("2405.00002", 0)]  # the release's two query papers
        with_body = sets[("2405.00001", 0)]
        assert {with_body.sources[a] for a in ("research_question", "method", "experiment")} == {"llm:fake-model"}
        assert set(sets[("2405.00002", 0)].queries) == {"abstract"}  # no .mmd in the release: abstract only
        assert server.request_count == 3  # three agents for the one query paper with a full text
        systems = {_sha(r["messages"][0]["content"]) for r in server.requests}
        assert systems == {PRISM_SYSTEM_SHA256[n] for n in AGENT_PROMPTS.values()}
        assert all(r["messages"][1]["content"] == mmd + "\n" for r in server.requests)  # the raw .mmd, whole
        assert {(r["temperature"], r["max_tokens"], r["repetition_penalty"]) for r in server.requests} == {
            (0.0, 2000, 1.2)}  # PRISM's decoding by default

        run = tmp_path / "eval"
        result = runner.invoke(app, ["eval", "run", "--kind", "scifullbench", str(FIXTURE), "--set",
                                     "methods=a2a,prism_llm", "--set", f"llm_queries={out}", "-m", "fake-embed",
                                     "--backend", "openai", "--embeddings-base-url", server.url, "--out", str(run)])
        assert result.exit_code == 0, result.output
        assert "prism_llm" in json.dumps(json.loads((run / "results.json").read_text()))


def test_prism_queries_scifullbench_options_are_checked(tmp_path):
    out = str(tmp_path / "q.jsonl")
    bad = runner.invoke(app, ["prism", "queries", str(FIXTURE), "--scifullbench", "-o", out, "--paper", "nope"])
    assert bad.exit_code == 2 and "not query papers" in bad.output, bad.output
    bad = runner.invoke(app, ["prism", "queries", str(FIXTURE), "-o", out, "--venue", "ACL"])
    assert bad.exit_code == 2 and "give --scifullbench too" in bad.output, bad.output
    ok = runner.invoke(app, ["prism", "queries", str(FIXTURE), "--scifullbench", "--venue", "ICLR", "-o", out])
    assert ok.exit_code == 0, ok.output
    assert sorted(read_query_sets(out)) == [("2405.00002", 0)]  # extractive, for the ICLR query paper only
