"""Scenario keys of the citation benchmark: ``(scenario, body mode)``, their names in results and their labels.

``("body_ta", "windowed")`` is the task ``body_ta/windowed``, labelled ``Body→TA (windowed)``; TA→TA has no
body mode (``("ta_ta", None)``, task ``ta_ta``). Section retrieval's one task is ``section``.
"""

from __future__ import annotations

from typing import Any

ScenarioKey = tuple[str, str | None]  # (scenario, body_mode); body_mode None where the scenario has no body side

SCENARIOS = ("ta_ta", "body_ta", "body_body")
BODY_MODES = ("windowed", "full")
BODY_SCENARIOS = frozenset({"body_ta", "body_body"})
SCENARIO_LABELS = {
    "ta_ta": "TA→TA",
    "body_ta": "Body→TA",
    "body_body": "Body→Body",
    "beir": "Query→Doc",
    "pools": "Pool re-rank",
    "section": "Section→same paper",
}


def normalize_key(key: ScenarioKey | str) -> ScenarioKey:
    """Canonical key: "body_ta/windowed" or ("body_ta", "windowed"); a body mode on TA→TA is dropped."""
    if isinstance(key, str):
        scenario, _, mode = key.partition("/")
        key = (scenario, mode or None)
    scenario, mode = key
    return (scenario, mode if scenario in BODY_SCENARIOS else None)


def key_str(key: ScenarioKey) -> str:
    """The task name of a key: ``body_ta/windowed``, ``ta_ta``."""
    scenario, mode = key
    return f"{scenario}/{mode}" if mode else scenario


def key_label(key: ScenarioKey) -> str:
    scenario, mode = key
    label = SCENARIO_LABELS.get(scenario, scenario)
    return f"{label} ({mode})" if mode else label


def scenario_keys(scenarios: Any, body_modes: Any) -> list[ScenarioKey]:
    """Keys in table order; TA→TA appears once whatever the body modes."""
    keys: list[ScenarioKey] = []
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown scenario {scenario!r}; expected one of {', '.join(SCENARIOS)}")
        if scenario in BODY_SCENARIOS:
            for mode in body_modes:
                if mode not in BODY_MODES:
                    raise ValueError(f"unknown body mode {mode!r}; expected one of {', '.join(BODY_MODES)}")
                keys.append((scenario, mode))
        else:
            keys.append((scenario, None))
    return list(dict.fromkeys(keys))
