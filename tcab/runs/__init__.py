"""Runs: the lifecycle of one harness run in a container, its logs and record.

Public: :func:`execute_run` (the whole run, for ``tcab run`` and doit tasks),
:class:`RunOptions`, :class:`RunRecord`, :class:`RunStatus` (from :mod:`tcab.outcomes`),
:func:`cleanup_containers`, :func:`new_run_id`; reading a run back:
:func:`load_run` (a run folder -> its record) and :func:`find_run` (a run
id given on the command line -> its record).
"""

from tcab.naming import new_run_id
from tcab.outcomes import RunStatus
from tcab.runs.cleanup import cleanup_containers
from tcab.runs.lifecycle import DEFAULT_IDLE_TIMEOUT_S, RunOptions, SeededRepo, execute_run
from tcab.runs.record import RunRecord, StageRecord, check_run_id, find_run, load_run

__all__ = ["DEFAULT_IDLE_TIMEOUT_S", "RunOptions", "RunRecord", "RunStatus", "SeededRepo", "StageRecord",
           "check_run_id", "cleanup_containers", "execute_run", "find_run", "load_run", "new_run_id"]
