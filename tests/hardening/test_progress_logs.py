"""Issue 15, defect 14: progress redirected to a log file prints plain periodic lines, not nothing."""

from __future__ import annotations

import os
import subprocess
import sys

from sciembed.ioutil import progress as progress_module
from sciembed.ioutil.progress import LogProgress, make_progress
from sciembed.models.progress import progress_bar


def test_log_progress_prints_start_periodic_and_done_lines(capsys, monkeypatch):
    from rich.progress import BarColumn, TextColumn

    monkeypatch.setattr(progress_module, "is_terminal", lambda: False)
    bar = make_progress(TextColumn("[bold]corpus build[/] {task.description}"), BarColumn())
    assert isinstance(bar, LogProgress)
    bar.every_s = 0.0
    with bar:
        task = bar.add_task("resolve", total=4, loss="-")
        bar.update(task, advance=1, description="funnel", loss="0.5")
        bar.advance(task, 3)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("corpus build resolve: started, 0/4 (0%), loss -")
    assert lines[1].startswith("corpus build funnel: 1/4 (25%), loss 0.5")
    assert lines[-1].startswith("corpus build funnel: done, 4/4 (100%)")

    monkeypatch.setattr(progress_module, "PLAIN_EVERY_S", 3600.0)
    with progress_bar("encode tiny", 1000) as advance:  # the encoders' bar: a start and an end line, no flood
        for _ in range(1000):
            advance(1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and "encode tiny: started, 0/1,000" in lines[0] and "done, 1,000/1,000" in lines[1]


def test_a_command_redirected_to_a_file_logs_its_progress(tmp_path):
    log = tmp_path / "synth.log"
    with open(log, "w") as handle:  # a file, not a terminal: rich would draw nothing here
        done = subprocess.run([sys.executable, "-m", "sciembed.cli.main", "synth", "--out", str(tmp_path / "s"),
                               "--n-papers", "300"], stdout=handle, stderr=subprocess.STDOUT, timeout=300,
                              env={**os.environ, "SCIEMBED_PROGRESS_EVERY_S": "0"})
    text = log.read_text()
    assert done.returncode == 0, text
    assert "synthetic papers: started, 0/300 (0%)" in text and "synthetic papers: done, 300/300 (100%)" in text
    assert sum(line.startswith("synthetic papers: ") for line in text.splitlines()) > 10  # periodic lines


def test_lines_in_a_detached_log_are_not_wrapped_at_80_columns(shared_data, tmp_path):
    """With no terminal attached, rich would wrap every line at 80 columns; the `sciembed` script widens it."""
    out = tmp_path / "a-corpus-directory-"  # the "wrote …" line: over 80 characters, under 200
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    runs = {}
    for name, code in (("script", "from sciembed.cli.main import main; main()"),
                       ("app", "from sciembed.cli.main import app; app()")):  # the control: rich's default
        target = out.with_name(out.name + name)
        done = subprocess.run([sys.executable, "-c", code, "corpus", "ingest", str(shared_data / "formats" / "jats"),
                               "--out", str(target)], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert len(str(target)) < 120
        runs[name] = done.stdout.splitlines()
    assert any(line.startswith("wrote ") and line.endswith("ingest_report.md") for line in runs["script"])
    assert max(len(line) for line in runs["script"]) > 80
    assert max(len(line) for line in runs["app"]) <= 80 and len(runs["app"]) > len(runs["script"])


def test_every_piped_progress_line_has_an_eta(capsys, monkeypatch):
    from rich.progress import TextColumn

    monkeypatch.setattr(progress_module, "is_terminal", lambda: False)
    bar = make_progress(TextColumn("{task.description}"))
    bar.every_s = 0.0
    with bar:
        task = bar.add_task("encode", total=100)
        bar._tasks[task].start -= 30.0  # 30 s spent on the first quarter: 90 s left
        bar.advance(task, 25)
    lines = capsys.readouterr().err.splitlines()
    assert "ETA" not in lines[0] and lines[1].endswith(", ETA 1 min 30 s"), lines
