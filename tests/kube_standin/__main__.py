"""``python -m tests.kube_standin KUBECONFIG``: serve until Ctrl-C (for the bench and by hand)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.kube_standin import StandIn


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.kube_standin KUBECONFIG-TO-WRITE")
    with StandIn() as server:
        server.write_kubeconfig(Path(sys.argv[1]))
        print(f"stand-in API server at {server.url}; kubeconfig {sys.argv[1]}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
