"""Removing containers that runs left behind (a killed tcab, a lost engine)."""

from __future__ import annotations

from tcab.runtime import Runtime


def cleanup_containers(runtime: Runtime, run_id: str | None = None) -> list[str]:
    """Remove every container carrying the tcab run label (only ``run_id``'s
    when given); return their ids. Raises RuntimeBackendError."""
    removed = []
    for cid in runtime.list_run_containers(run_id):
        runtime.remove(cid)
        removed.append(cid)
    return removed
