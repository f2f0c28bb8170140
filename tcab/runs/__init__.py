"""Runs: the lifecycle of one harness run in a container, its logs and record.

Public: :func:`execute_run` (the whole run, for ``tcab run`` and doit tasks),
:class:`RunOptions`, :class:`RunRecord`, :data:`STATUSES`,
:func:`cleanup_containers`, :func:`new_run_id`.
"""

from tcab.runs.cleanup import cleanup_containers
from tcab.runs.lifecycle import DEFAULT_IDLE_TIMEOUT_S, RunOptions, execute_run, new_run_id
from tcab.runs.record import STATUSES, RunRecord, StageRecord

__all__ = ["DEFAULT_IDLE_TIMEOUT_S", "STATUSES", "RunOptions", "RunRecord", "StageRecord",
           "cleanup_containers", "execute_run", "new_run_id"]
