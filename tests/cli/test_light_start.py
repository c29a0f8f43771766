"""The `sciembed` script builds only the command it runs: `index search --server URL` imports no model, index
or Arrow code (issue 31), and a command built alone is the command of the whole tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import typer.main

from fakes.http import reply_server
from sciembed.cli.main import COMMANDS, app, module_for

HEAVY = ("torch", "numpy", "faiss", "pyarrow", "pandas", "duckdb", "bm25s", "onnxruntime", "transformers",
         "sentence_transformers", "sciembed.models", "sciembed.retrieval.dense", "sciembed.search.batch")
SCRIPT = ("import atexit, sys\n"
          "atexit.register(lambda: print('MODULES', *sorted(sys.modules), file=sys.stderr))\n"
          "sys.argv[0] = 'sciembed'\nfrom sciembed.cli.main import main\n"
          "main()\n")
REPLY = {"hits": [{"id": "P17-1001", "score": 0.75, "title": "Parsing [graphs]"}]}


def _script(*args: str) -> subprocess.CompletedProcess:
    """`sciembed ARGS` as the console script runs it, the modules it imported on the last stderr line."""
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, env=env,
                          timeout=120)


def _imported(done: subprocess.CompletedProcess) -> set[str]:
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return set(line.split()[1:])


def test_search_over_a_server_imports_no_model_index_or_arrow_code():
    server = reply_server(json.dumps(REPLY).encode())
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        found = _script("index", "search", "--server", url, "--query", "graph parsing", "--output-format", "json")
        table = _script("index", "search", "--server", url, "--query", "graph parsing")
    finally:
        server.shutdown()
        server.server_close()  # the port refuses: no answer to wait for
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == [{"query": "query", "hits": [{"rank": 1, "paper_id": "P17-1001",
                                                                    "score": 0.75, "title": "Parsing [graphs]"}]}]
    assert table.returncode == 0 and "query: graph parsing" in table.stdout and "Parsing [graphs]" in table.stdout
    for done in (found, table):
        assert not {m for m in _imported(done) if m.split(".")[0] in HEAVY or m in HEAVY}
    gone = _script("index", "search", "--server", url, "--query", "x")  # a failure exits through the guard
    assert gone.returncode == 2 and "running there?" in gone.stderr
    assert not {"pyarrow", "duckdb", "numpy"} & _imported(gone)


def test_the_command_map_names_the_module_of_every_command():
    def paths(group, prefix: tuple[str, ...]):
        for name, command in group.commands.items():
            if hasattr(command, "commands"):
                yield from paths(command, (*prefix, name))
            else:
                yield (*prefix, name), command.callback.__module__

    found = dict(paths(typer.main.get_command(app), ()))
    assert {path: module_for(path) for path in found} == {p: m.rsplit(".", 1)[1] for p, m in found.items()}
    assert all(any(path[:len(key)] == key for path in found) for key in COMMANDS)  # no command left in the map


def test_a_command_built_alone_has_the_help_of_the_whole_tree():
    from sciembed import __version__

    whole = ("import sys\nfrom sciembed.cli.main import app\nsys.argv[0] = 'sciembed'\napp()\n")
    args = ["index", "search", "--help"]
    alone, control = _script(*args), subprocess.run([sys.executable, "-c", whole, *args], capture_output=True,
                                                    text=True, env={**os.environ, "COLUMNS": "120"}, timeout=120)
    assert alone.returncode == control.returncode == 0, alone.stderr + control.stderr
    assert alone.stdout == control.stdout and "Usage: sciembed index search" in alone.stdout
    assert "sciembed.cli.evaluate" not in _imported(alone)
    version = _script("--version")
    assert version.returncode == 0 and version.stdout == f"sciembed {__version__}\n"
    assert not {m for m in _imported(version) if m.startswith("sciembed.cli.") and m not in ("sciembed.cli.main",
                "sciembed.cli.errors", "sciembed.cli.groups")}
