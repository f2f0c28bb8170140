"""doit entry point: the task generators live in tcab.tasks (see docs/sweeps.md)."""
