"""How a long backup, verify or restore reports where it is: to a progress bar, a job row, or nobody."""

from __future__ import annotations


class Reporter:
    """Receives stages and advances; the base class ignores them (library use, tests)."""

    def stage(self, name: str, total: int, unit: str = "rows") -> None:
        """A new stage starts (`tables`, `uploads`, `verify`, ...), with its total in `unit`."""

    def advance(self, amount: int) -> None:
        """`amount` more units of the current stage are done."""

    def note(self, text: str) -> None:
        """A line worth telling the operator (a table being loaded, a warning)."""


SILENT = Reporter()


class StageAdapter:
    """Adapts archive.py's `progress(kind, amount)` callbacks to a Reporter."""

    def __init__(self, reporter: Reporter):
        self.reporter = reporter

    def __call__(self, _kind: str, amount: int) -> None:
        self.reporter.advance(amount)
