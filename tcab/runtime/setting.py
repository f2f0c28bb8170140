"""One runtime setting's definition (tcab.runtime.choice.SETTINGS lists them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Setting:
    """One runtime setting: ``kind`` is ``text``, ``seconds`` (a positive
    integer up to MAX_LIMIT_S) or ``names`` (a comma-separated list)."""

    name: str
    backend: str | None  # None: every backend (a run limit)
    kind: str
    help: str

    @property
    def flag(self) -> str:
        """The ``tcab run`` option of a kubernetes setting."""
        return f"--k8s-{self.name.replace('_', '-')}"
