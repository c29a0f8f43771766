"""Issue 23, defect 9: rich markup in titles or ids is printed as text, never interpreted."""

from __future__ import annotations

from sciembed.cli.search import _render


def test_markup_in_titles_and_ids_is_printed_verbatim(capsys):
    results = [("q", [("[/y]odd-id", 0.9), ("p2", 0.8), ("p3", 0.7)])]
    titles = {"[/y]odd-id": "[/x] closes nothing", "p2": "[bold red]Red title[/bold red]", "p3": "[link=x]y[/link]"}
    _render(results, titles, "table", single=True, header="query: [b]q[/b]")
    out = capsys.readouterr().out
    for text in ("[/y]odd-id", "[/x] closes nothing", "[bold red]Red title[/bold red]", "[link=x]y[/link]",
                 "[b]q[/b]"):
        assert text in out.replace("\n", "") or text in out, text
