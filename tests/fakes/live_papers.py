"""Papers the service tests add live, in sciembed's own JSON format (`Paper.to_dict()`)."""

from __future__ import annotations


def new_paper(pid: str, title: str = "Transmission spectroscopy of a hot exoplanet", words: int = 300) -> dict:
    return {"id": pid, "title": title, "abstract": "We observe the atmosphere of an exoplanet during its transit.",
            "year": 2024, "venue": "Live Journal", "domain": "Physics",
            "sections": [{"heading": "Introduction", "text": "exoplanet atmosphere spectra " * (words // 3)},
                         {"heading": "Methods", "text": "we reduce the spectra with a pipeline " * (words // 7)}]}
