"""Benchmark scenarios and budget lines contributed by plugins, one module per plugin.

Each module here (``tests/benchmarks/plugins/<plugin>.py``) defines:

- ``SCENARIOS``: a list of ``tests.benchmarks.scenarios.Scenario``; keys are prefixed with the
  plugin's name (``calendar-events``) so that ``--scenarios`` can pick them. A scenario that needs
  data of its own creates it in ``prepare(context)`` over REST as ``context.admin_authorization``.
- ``BUDGET``: a list of ``Budget`` lines, each a floor on one of its scenarios' throughput.
- ``SITE`` (optional): ``[site]`` settings the measured servers need (the spam module turns
  off per-address comment flood control, since wrk sends every comment from 127.0.0.1).
- ``MEASURES`` (optional): a list of ``Measure``: a budget that is a time in process rather than a
  throughput (the spam check's "at most 1 ms"). Timing bounds belong here, not in the test suite,
  where a loaded CI machine would turn them into flaky failures.

A module is found by being in this folder: adding a plugin's benchmarks touches no shared file.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Budget:
    """`scenario` must reach `share` of the hello-world ceiling at the reference size, per worker count,
    and (with `max_drop`) lose at most that share of its throughput from the smallest size to the largest."""

    scenario: str
    share: float
    why: str = ""
    max_drop: float | None = None


@dataclass(frozen=True)
class Measure:
    """`run(workdir)` measures something in process and returns it in `unit` (milliseconds unless told:
    a ratio of statement counts is "x"); the line is met at most `limit_ms`, in that unit.

    `key` is prefixed with the plugin's name (``spam-check``) so that ``--scenarios`` can pick it.
    """

    key: str
    label: str
    limit_ms: float
    run: Callable[[Path], float]
    why: str = ""
    unit: str = "ms"


def discovered() -> tuple[list, list[Budget], list[Measure]]:
    """Every plugin module's scenarios, budget lines and in-process measures, in module-name order."""
    scenarios, budget, measures = [], [], []
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        scenarios.extend(getattr(module, "SCENARIOS", []))
        budget.extend(getattr(module, "BUDGET", []))
        measures.extend(getattr(module, "MEASURES", []))
    return scenarios, budget, measures


def site_settings() -> dict:
    """The `[site]` settings every plugin module asks for (SITE), merged in module-name order."""
    merged: dict = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        merged.update(getattr(importlib.import_module(f"{__name__}.{module_info.name}"), "SITE", {}))
    return merged
