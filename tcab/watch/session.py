"""A watch: the board and page a watcher looks at, and one listener per run.

``tcab run --watch`` makes one :class:`Watch`, starts its page (printing the
URL) and hands it to the run (``RunOptions.watch``); the run lifecycle asks
it for a :class:`RunListener` on the address its runtime names
(``Runtime.preview_address``), passes the listener's :class:`LiveEndpoint`
to the test type's ``watch_setup``, and serves the listener (its firewall
hole open) for exactly as long as the container lives.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator

from tcab.catalog.testtype import LiveEndpoint
from tcab.errors import RuntimeSettingsError
from tcab.watch.board import Board
from tcab.watch.firewall import open_port
from tcab.watch.limits import WatchLimits
from tcab.watch.listener import Listener
from tcab.watch.page import Page

#: The name a watched run's container reaches its host by (the runtime maps it).
HOST_NAME = "host.docker.internal"


class RunListener:
    """One run's listener, bound but not yet serving; ``live`` is its endpoint."""

    def __init__(self, listener: Listener, token: str) -> None:
        self._listener = listener
        self.live = LiveEndpoint(url=f"http://{HOST_NAME}:{listener.port}/frame", token=token)

    def expect_peer(self) -> None:
        """Take frames from nobody until :meth:`allow_peer` names the run's container."""
        self._listener.peers = frozenset()

    def allow_peer(self, address: str | None) -> None:
        """Take frames from ``address`` only (None: from any address, for a
        backend that cannot say where its container's traffic comes from)."""
        self._listener.peers = None if address is None else frozenset({address})

    @property
    def address(self) -> tuple[str, int]:
        return self._listener.host, self._listener.port

    @contextlib.contextmanager
    def serving(self) -> Iterator[RunListener]:
        """Open the firewall's preview hook for this port and serve; both end
        with the block (the rule is deleted even when the block raises)."""
        try:
            with open_port(*self.address):
                self._listener.start()
                yield self
        finally:
            self._listener.close()  # also when opening the port failed: the socket is closed

    def close(self) -> None:
        self._listener.close()


class Watch:
    """The frames of one or several watched runs, and the page showing them."""

    def __init__(self, limits: WatchLimits | None = None) -> None:
        self.limits = limits or WatchLimits()
        self.board = Board(self.limits.max_kept_bytes)
        self.page: Page | None = None

    def start_page(self, port: int = 0) -> str:
        """Serve the page on 127.0.0.1 (a free port by default); its URL."""
        if self.page is None:
            self.page = Page(self.board, port).start()
        return self.page.url

    def listener(self, host: str, run_id: str) -> RunListener:
        """A listener for ``run_id`` bound on ``host`` with a token of its own.
        Raises RuntimeSettingsError when ``host`` cannot be bound (not an
        address of this host: a wrong ``POD_IP`` or ``TCAB_K8S_PREVIEW_HOST``)."""
        token = secrets.token_urlsafe(32)
        listener = Listener(host, self.board, run_id, token, self.limits)
        try:
            listener.bind()
        except OSError as exc:
            raise RuntimeSettingsError(
                f"watch: cannot listen on {host}: {exc.strerror or exc} (the address a watched run's "
                "container reaches the host at must be one of this host's: POD_IP or TCAB_K8S_PREVIEW_HOST "
                "on kubernetes)") from exc
        self.board.add_run(run_id)
        return RunListener(listener, token)

    def close(self) -> None:
        if self.page is not None:
            self.page.close()
            self.page = None

    def summary(self) -> str:
        state = self.board.state()
        dropped = ", ".join(f"{k} {v}" for k, v in sorted(state["dropped"].items()))
        return f"{state['accepted']} frames shown" + (f", dropped: {dropped}" if dropped else ", none dropped")
