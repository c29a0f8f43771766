"""Every `sciembed …` command in README.md and the docs/ site runs as written (issue 15, defect 14; issue 25).

Two checks:

* **parse** — every command line of the README's code blocks, and every inline `` `sciembed …` `` span, is
  parsed by the real click command tree (no execution). An unknown subcommand or option (a README that
  documents `eval --quantize` when eval has none) fails; so does a missing required argument, except in
  lines with `...` / `…` placeholders (syntax sketches), which are parsed leniently. Every `--option`
  the README mentions in backticks inside a `### sciembed <command>` section's prose (e.g. `--backend
  onnx --quantize`) must be an option of a command that section names or runs.
* **execute** — the README commands listed in `EXECUTED` run, as written, on the real sample data
  (`shared/data/formats`, `unarxive-sample`, `scitldr/dev.jsonl`) in a temporary directory: paths are
  mapped into it (`PATHS`) and `minilm` is replaced by a tiny random-init BERT (`fakes.models`)
  so the chain takes seconds. Executed: synth → ingest → corpus build (synthetic, the README's smoke
  chain), ingest of the formats and unarXive samples, inspect, stats, index (dense section, dense ta
  HNSW, BM25 segment), search by query and by paper, beir scitldr, eval on the built corpus and on a
  SciTLDR BEIR folder (with `--backend onnx --quantize`, which the eval section documents), compare,
  train window --dry-run.

Parse-only (they need an LLM endpoint, real training, a GPU-sized run or placeholder paths): demo, bench,
train without --dry-run, study, prism, summaries, eval --paper-to-paper / --semantic / --section-retrieval,
serve, and the lines with placeholders (RUN_A, CORPUS, `...`).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sciembed.cli.main import app

try:  # typer >= 0.29 vendors its own click
    from typer._click.exceptions import BadOptionUsage, MissingParameter, NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover
    from click.exceptions import BadOptionUsage, MissingParameter, NoArgsIsHelpError, UsageError

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS = sorted((README.parent / "docs").rglob("*.md"))  # every page, whoever wrote it
PAGES = [README, *DOCS]
PLACEHOLDERS = {"...", "…"}


def _code_block_commands(text: str) -> list[str]:
    commands = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S):
        lines = block.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            while line.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line.rstrip()[:-1] + " " + lines[i].strip()
            if line.lstrip().startswith("$ ") or line.lstrip().startswith("sciembed "):  # a command, not output
                line = re.sub(r"\s+#.*$", "", line.lstrip().removeprefix("$ "))  # a trailing comment
                for part in re.split(r"\s*(?:;|&&|&|\|)\s+", line):  # `a; b`, `a & b`: each command
                    m = re.match(r"^(?:/usr/bin/time -v\s+|nice -n \d+\s+)*(sciembed\s.*)$", part.strip())
                    if m:
                        commands.append(m.group(1).strip())
            i += 1
    return commands


def _inline_commands(text: str) -> list[str]:
    return [span for span in re.findall(r"`(sciembed [^`]*)`", text)]


def readme_commands() -> list[str]:
    """The command lines of the code blocks of the README and every docs/ page."""
    return list(dict.fromkeys(c for page in PAGES for c in _code_block_commands(page.read_text())))


def readme_references() -> list[str]:
    """Inline `sciembed …` spans: command names with some options, often without their values."""
    commands = set(readme_commands())
    spans = (c for page in PAGES for c in _inline_commands(page.read_text()))
    return [c for c in dict.fromkeys(spans) if c not in commands]


def _argv(command: str) -> list[str]:
    tokens = shlex.split(command)
    assert tokens[0] == "sciembed"
    return [t.strip("[]") for t in tokens[1:] if t not in PLACEHOLDERS and t.strip("[]")]


def _is_group(command) -> bool:
    return hasattr(command, "commands")


def parse(argv: list[str], lenient: bool):
    """Parse argv through the real command tree (nothing runs); returns the leaf command.

    `lenient`: a missing required argument or option is accepted (a `...` sketch); unknown ones never are.
    """
    command = typer.main.get_command(app)
    try:
        ctx = command.make_context("sciembed", list(argv))
        while _is_group(command):
            name, sub, rest = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
            ctx = sub.make_context(name, rest, parent=ctx)
            command = sub
    except (MissingParameter, NoArgsIsHelpError):
        if not lenient:
            raise
    except BadOptionUsage as err:  # `--semantic` named in prose, without its value
        if not (lenient and argv and argv[-1] == err.option_name):
            raise
    return command


def _command(words: list[str]):
    """The deepest command named by the leading words (`eval …` → eval; `prism queries X` → prism queries)."""
    command = typer.main.get_command(app)
    for word in words:
        if not _is_group(command) or word not in command.commands:
            break
        command = command.commands[word]
    return command


def _options(command) -> set[str]:
    """Options of a command and, for a group, of all its subcommands."""
    own = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts) if opt.startswith("-")}
    return own.union(*(_options(sub) for sub in getattr(command, "commands", {}).values()))


@pytest.mark.parametrize("command", readme_commands())
def test_readme_command_parses(command):
    lenient = any(t in PLACEHOLDERS for t in shlex.split(command))
    try:
        parse(_argv(command), lenient)
    except UsageError as err:
        pytest.fail(f"README command does not parse: {command}\n  {err.format_message()}")


@pytest.mark.parametrize("command", readme_references())
def test_readme_inline_command_names_exist(command):
    try:
        parse(_argv(command), lenient=True)
    except UsageError as err:
        pytest.fail(f"README names a command or option that does not exist: {command}\n  {err.format_message()}")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_readme_sections_mention_only_real_options(page):
    text = page.read_text() + "\n# end\n"
    wrong = []
    for heading, body in re.findall(r"^#{1,4} (.*?)\n(.*?)(?=^#{1,4} )", text, re.S | re.M):
        if "`sciembed " not in heading:
            continue
        prose = re.sub(r"```.*?```", "", body, flags=re.S)
        named = re.findall(r"sciembed ([a-z][^`\n]*)", heading + body)  # the heading's and those the section runs
        known = set().union(*(_options(_command(n.split())) for n in named))
        for span in re.findall(r"`(--[^`]*)`", prose):  # `--beir DIR`, `--backend onnx --quantize`
            for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?![\w*-])", span):
                if option not in known:
                    wrong.append(f"{heading}: {option} (in `{span}`)")
    assert not wrong, "README mentions options its commands do not have:\n" + "\n".join(wrong)


# -- current spellings only ------------------------------------------------------------------------------------

OLD_SPELLINGS_PASSAGE = re.compile(r"(?i)old spelling|spellings (this|that were) replaced")  # the deprecation tables


def deprecated_spellings(argv: list[str]) -> list[str]:
    """What in `argv` is a hidden command or option (none exist today; this keeps it that way in the docs)."""
    command, found, i = typer.main.get_command(app), [], 0
    while _is_group(command) and i < len(argv):
        word = argv[i]
        if word not in command.commands:
            break
        command, i = command.commands[word], i + 1
        if command.hidden:
            found.append(f"command {word}")
    hidden = {o for p in command.params if getattr(p, "hidden", False) for o in (*p.opts, *p.secondary_opts)}
    return found + [f"option {t}" for t in argv[i:] if t.split("=")[0] in hidden]


def current_spelling_cases() -> list[str]:
    """Every command line of a code block and every inline span outside the passages that list old spellings."""
    cases = []
    for page in PAGES:
        text = page.read_text()
        cases += _code_block_commands(text)
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for paragraph in re.split(r"\n\s*\n", prose):
            if not OLD_SPELLINGS_PASSAGE.search(paragraph):
                cases += _inline_commands(paragraph)
    return list(dict.fromkeys(cases))


@pytest.mark.parametrize("command", current_spelling_cases())
def test_docs_use_the_current_spellings(command):
    """The docs teach `corpus ingest`, `index build`, `eval run --kind …`; old spellings only in the tables."""
    old = deprecated_spellings(_argv(command))
    assert not old, f"{command}: deprecated spelling ({', '.join(old)}); see docs/cli.md for the new one"


# -- executed on the sample data -------------------------------------------------------------------------------

EXECUTED = [
    "sciembed synth --out runs/smoke/synth --n-papers 400 --seed 0",
    "sciembed corpus ingest runs/smoke/synth --out runs/smoke/ingested",
    "sciembed corpus build runs/smoke/ingested --out runs/smoke/corpus --test-size 0.35 --val-size 0.02",
    "sciembed corpus stats runs/demo/ingested",
    "sciembed corpus ingest ../shared/data/formats --out /tmp/rd/formats",
    "sciembed corpus ingest ../shared/data/unarxive-sample --out /tmp/ux",
    "sciembed corpus inspect /tmp/ux --paper 2212.11816",
    "sciembed index build /tmp/ux --model minilm --view section --out /tmp/ix",
    'sciembed index search /tmp/ix --query "transmission spectroscopy of exoplanet atmospheres" --k 5',
    "sciembed index search /tmp/ix --paper 2212.11867 --k 5 --aggregate mean",
    "sciembed index build /tmp/ux --model minilm --out /tmp/ix-full",  # the full-text default (docs/search.md)
    "sciembed index search /tmp/ix-full --paper 2212.11867 --k 5",
    "sciembed corpus ingest ../shared/data/unarxive-sample --out runs/ux",
    "sciembed index build runs/ux --model bm25 --view segment --out runs/ix-bm25",
    "sciembed corpus ingest ../shared/data/unarxive-sample --out /tmp/rd/ux",
    "sciembed index build /tmp/rd/ux --model minilm --view ta --index hnsw --out /tmp/rd/ux-index",
    "sciembed beir scitldr ../shared/data/scitldr/dev.jsonl --out runs/scitldr",
    # the eval section: "`--backend onnx --quantize` uses the ONNX int8 backend"
    "sciembed eval run --kind beir runs/scitldr/title2abstract -m minilm --out runs/eval-t2a"
    " --backend onnx --quantize",
    "sciembed eval run runs/demo/corpus --model bm25 --model minilm --out runs/eval --cache-dir runs/cache",
    "sciembed eval compare RUN_A RUN_B --model-a bm25 --model-b minilm",
    "sciembed train window --config configs/window-demo.yaml --corpus runs/demo/corpus --dry-run",
]
ADDED_FLAGS = " --backend onnx --quantize"
EXPECT = {  # a few things each executed command must print
    "sciembed corpus ingest ../shared/data/formats": "read 13 = accepted 9 + rejected 4",  # + 2 PDFs, duplicates
    "sciembed corpus ingest ../shared/data/unarxive-sample --out /tmp/ux": "read 49 = accepted 49 + rejected 0",
    "sciembed corpus inspect": "High-Resolution Transmission Spectroscopy",
    "sciembed index search /tmp/ix --paper": "papers like 2212.11867",
    "sciembed index build /tmp/ux --model minilm --out /tmp/ix-full": "BM25 over 49 full texts",
    "sciembed index search /tmp/ix-full --paper": "papers like 2212.11867",
    "sciembed beir scitldr": "tldr2paper: 1453 queries",
    "sciembed eval compare": "(B) vs bm25 (A)",
}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    from fakes.models import build_tiny_bert

    words = ["the", "of", "and", "a", "in", "to", "is", "for", "we", "on", "with", "model", "data", "method"]
    return build_tiny_bert(tmp_path_factory.mktemp("readme-model"), words)


def _localise(command: str, root: Path, shared: Path, model: Path) -> list[str]:
    paths = {"../shared/data": shared, "/tmp/rd": root / "rd", "/tmp/ux": root / "ux",
             "/tmp/ix": root / "ix", "runs/demo/": root / "runs" / "smoke", "runs/": root / "runs",
             "RUN_A": root / "runs" / "eval", "RUN_B": root / "runs" / "eval"}
    argv = []
    for token in shlex.split(command)[1:]:
        if token == "minilm":
            token = str(model)
        for prefix, target in paths.items():
            if token == prefix.rstrip("/") or token.startswith(prefix):
                token = str(target) + ("/" if prefix.endswith("/") else "") + token[len(prefix):]
                break
        argv.append(token)
    return argv


def test_readme_chain_runs_on_the_sample_data(shared_data, tiny_model, tmp_path, monkeypatch):
    documented = readme_commands()
    for command in EXECUTED:
        base = command.removesuffix(ADDED_FLAGS)
        assert base in documented, f"executed command is no longer in the README or docs/: {base}"
    monkeypatch.chdir(README.parent)  # configs/… as written
    runner = CliRunner()
    for command in EXECUTED:
        run = runner.invoke(app, _localise(command, tmp_path, shared_data, tiny_model))
        assert run.exit_code == 0, f"{command}\n{run.output}\n{run.exception!r}"
        for prefix, expected in EXPECT.items():
            if command.startswith(prefix):
                assert expected in " ".join(run.output.split()), f"{command}\n{run.output}"
