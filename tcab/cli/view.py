"""``tcab view``: browse results.db, run folders and replays in a local web app."""

from __future__ import annotations

import ipaddress
import socket
import threading
import webbrowser
from pathlib import Path

import click

from tcab.cli.params import bounded
from tcab.settings import Settings


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but loopback exposes your results to the network.")
@click.option("--port", type=bounded("--port"), default=8765, show_default=True,
              help="Port to listen on; 0 picks a free one.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The results database [default: $TCAB_RESULTS/results.db].")
@click.option("--open", "open_browser", is_flag=True, help="Open the home page in a browser.")
@click.pass_obj
def view(settings: Settings, host: str, port: int, db_path: Path | None, open_browser: bool) -> None:
    """Serve a read-only web app over results.db: the report's tables, each
    run (record, stages, transcript, collected tree, validation screenshots
    beside the references), each match played in its case's renderer, and
    each tournament (standings, ratings, cross table). Prints its URL and
    serves until interrupted.

    \b
    Examples:
      tcab view                      http://127.0.0.1:8765/
      tcab view --port 0 --open      a free port, opened in the browser

    Exit codes: 0 stopped, 2 no database, a bad option or a port in use.
    """
    import uvicorn

    from tcab.view.app import ViewConfig, create_app

    if not host.strip():
        # An empty address binds every interface (and an empty Host would then pass).
        raise click.BadParameter("an address is required (127.0.0.1 for this machine only)",
                                 param_hint="--host")
    path = (db_path or settings.results_db).resolve()
    hosts = ("127.0.0.1", "localhost", "[::1]")
    if host not in ("127.0.0.1", "localhost", "::1"):
        hosts += (f"[{host}]" if ":" in host else host,)
        if not _loopback(host):
            click.secho(f"warning: listening on {host}: anyone who can reach it can read these results",
                        fg="yellow", err=True)
    app = create_app(ViewConfig(db_path=path, results_dir=path.parent,
                                catalog_dir=settings.catalog_dir, hosts=hosts))
    sock = _bind(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/"
    click.echo(f"tcab view: {url} (results: {path}; Ctrl-C stops)", err=False)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           server_header=False, lifespan="off"))
    server.run(sockets=[sock])


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket, bound before the URL is printed (so port 0 prints the real port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as exc:
        sock.close()
        raise click.BadParameter(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}",
                                 param_hint="--host/--port") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
