"""A stand-in Kubernetes API server for the ``kubernetes`` backend's tests.

No Kubernetes API server can be installed on these machines, so this is the
smallest honest substitute: a real HTTP and WebSocket server (aiohttp) on
127.0.0.1 that implements exactly the calls the backend makes, runs each pod
as a real Podman container, validates every pod body against the official
OpenAPI schema with unknown fields rejected, and injects the faults a
cluster produces (see :class:`~tests.kube_standin.pods.Faults`). It applies
the shipped NetworkPolicy (``containers/kubernetes/networkpolicy.yaml``) the
way an enforcing CNI would here: the pods it selects run on the firewalled
``tcab-run`` Podman network (``containers/run-network.sh``). It is not
a cluster: no scheduler beyond one node's labels and capacity, no watches,
no admission webhooks, no quota.

Use it as a context manager (the tests' ``kube_standin`` fixture), or run
``python -m tests.kube_standin KUBECONFIG`` to serve until Ctrl-C.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import secrets
import threading
from pathlib import Path

from aiohttp import web

from tests.kube_standin import node
from tests.kube_standin.pods import Faults, PodStore
from tests.kube_standin.server import make_app

__all__ = ["Faults", "StandIn"]


class StandIn:
    """The server on its own thread and event loop."""

    def __init__(self, namespaces: tuple[str, ...] = ("tcab", "default")):
        self.token = secrets.token_hex(16)
        self.faults = Faults()
        self.store = PodStore(set(namespaces), self.faults)
        self.url = ""
        self._loop = asyncio.new_event_loop()
        # Each pod's container wait and each exec stream hold a thread.
        self._loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=256))
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name="kube-standin")
        self._runner: web.AppRunner | None = None

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            self._runner = web.AppRunner(make_app(self.store, self.token), access_log=None)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}"
            self._ready.set()

        self._loop.run_until_complete(start())
        self._loop.run_forever()

    def start(self) -> StandIn:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the stand-in API server did not start")
        return self

    def call(self, coro, timeout: float = 60):
        """Run ``coro`` on the server's loop from another thread."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def delete_pod(self, namespace: str, name: str) -> bool:
        """Delete a pod from outside the backend (as an operator or eviction would)."""
        return self.call(self.store.delete(namespace, name)) is not None

    def pods(self, namespace: str = "tcab") -> list[dict]:
        return [p.obj for (ns, _), p in list(self.store.pods.items()) if ns == namespace]

    def write_kubeconfig(self, path: Path, namespace: str = "tcab", context: str = "standin") -> Path:
        path.write_text(
            "apiVersion: v1\nkind: Config\n"
            f"clusters:\n- name: standin\n  cluster:\n    server: {self.url}\n"
            f"users:\n- name: tcab\n  user:\n    token: {self.token}\n"
            f"contexts:\n- name: {context}\n  context:\n    cluster: standin\n    user: tcab\n    namespace: {namespace}\n"
            f"current-context: {context}\n", encoding="utf-8")
        return path

    def stop(self) -> list[str]:
        """Stop serving; remove the containers of pods still present and
        return their pod names (a test asserts there are none)."""
        left = [name for (_, name) in self.store.pods]
        for ns, name in list(self.store.pods):
            self.call(self.store.delete(ns, name))
        if self._runner is not None:
            self.call(self._runner.cleanup())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        for cid in node.leftover_containers():
            node.remove_container(cid)
        return left

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
