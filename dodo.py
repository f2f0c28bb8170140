"""doit entry point: the task generators live in tcab.tasks (see docs/sweeps.md).

    doit                      run the sweep of benchmark.yaml (or $TCAB_PLAN)
    doit plan=plans/agents.yaml  another plan
    doit list                 every task; doit info TASK says why it would run

A broken plan exits 2 with one ``error: FILE:LINE: KEY: ...`` line
(TCAB_DEBUG=1 shows the traceback).
"""

import gc
import sys

from doit import get_var

from tcab.tasks import load_sweep_or_exit

# A broken plan or catalog: one message and exit 2, not doit's traceback;
# for a whole sweep, what it needs and lacks too (tcab/tasks/preflight.py).
_sweep = load_sweep_or_exit(get_var("plan"), argv=sys.argv[1:])
# The catalog, the plan and thousands of task closures live as long as this
# process: move them out of the collector's sight (a no-op sweep spends ~10%
# of its time in the collector otherwise).
gc.freeze()

DOIT_CONFIG = _sweep.doit_config
task_seed = _sweep.task_seed
task_prompt = _sweep.task_prompt
task_runs = _sweep.task_runs
task_after_run = _sweep.task_after_run
task_entrants = _sweep.task_entrants
task_tournament = _sweep.task_tournament
task_replay = _sweep.task_replay
task_manifest = _sweep.task_manifest
task_report = _sweep.task_report
