"""A TCP listener on every host address, and the addresses a container
would try to reach the host by (issue 21 item 18)."""

from __future__ import annotations

import socket
import threading


class HostListener:
    """Listens on 0.0.0.0 (every host address) at a free port; ``seen``
    lists the peers of the connections it accepted."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.seen: list[tuple[str, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except OSError:
                continue
            self.seen.append(peer)
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def host_addresses(podman_api) -> list[str]:
    """The host's own IPv4 addresses a container could aim at: every Podman
    network's gateway and the address of the host's default route."""
    found = []
    for net in podman_api.networks():
        for config in (net.get("IPAM") or {}).get("Config") or []:
            if config.get("Gateway") and ":" not in config["Gateway"]:
                found.append(config["Gateway"])
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("203.0.113.1", 9))  # no packet is sent: only the route is looked up
        found.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()
    return sorted(set(found))


def connect_script(addresses: list[str], port: int) -> str:
    """A shell line printing ``open ADDR`` for each address a TCP connect reaches."""
    targets = " ".join(addresses)
    return (f"for h in {targets}; do timeout 4 bash -c \"echo > /dev/tcp/$h/{port}\" 2>/dev/null "
            "&& echo \"open $h\" || echo \"closed $h\"; done")
