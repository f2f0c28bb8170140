"""Watching a run live (docs/asset-generation.md, "Watching a run").

A watched run's container streams preview frames to a listener on the run
host; the watcher sees them on a loopback page. Public names:

- :class:`Watch`: the board and page of a watch; ``listener(host, run_id)``
  binds one run's listener (:class:`RunListener`, with its ``live``
  :class:`LiveEndpoint`);
- :class:`WatchLimits` and the limit constants (:mod:`tcab.watch.limits`);
- :func:`remove_stale_rules`: delete firewall rules left by a killed tcab.
"""

from __future__ import annotations

from tcab.catalog.testtype import LiveEndpoint
from tcab.watch.firewall import remove_stale as remove_stale_rules
from tcab.watch.limits import WatchLimits
from tcab.watch.session import HOST_NAME, RunListener, Watch

__all__ = ["HOST_NAME", "LiveEndpoint", "RunListener", "Watch", "WatchLimits", "remove_stale_rules"]
