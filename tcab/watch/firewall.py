"""The one hole a watched run opens in the run network's firewall.

containers/run-network.sh rejects every new connection from the run network
to the host's own addresses, after jumping to the empty chain
``TCAB-RUN-PREVIEW``: the hook for this module. While a run is watched it
holds one rule, accepting TCP to the listener's address and port only:

    iptables -A TCAB-RUN-PREVIEW -d GATEWAY -p tcp --dport PORT \\
        -m comment --comment "tcab-preview pid=PID start=TICKS" -j ACCEPT

The comment names the tcab process that owns the rule (its pid and its start
time, so a reused pid does not count as alive). The rule is deleted when the
watch ends; a rule whose owner is gone (tcab was killed) is deleted by the
next watch that opens one and by ``tcab cleanup``. Adding and deleting are
idempotent.

A host without the chain (a Kubernetes driver pod, where a NetworkPolicy is
the firewall) has nothing to open: :func:`open_port` does nothing there.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator

from tcab.errors import InfrastructureError

CHAIN = "TCAB-RUN-PREVIEW"
_TAG = "tcab-preview"
_OWNER = re.compile(r'--comment "?tcab-preview pid=(\d+) start=(\d+)"?')
_TIMEOUT_S = 20.0


class FirewallError(InfrastructureError):
    """iptables failed (or is missing where the chain must be opened)."""


def _iptables(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    tool = shutil.which("iptables")
    if tool is None:
        raise FirewallError("watch: iptables is missing; the run network's preview hook cannot be opened")
    done = subprocess.run([tool, "-w", *args], capture_output=True, text=True, timeout=_TIMEOUT_S)
    if check and done.returncode != 0:
        raise FirewallError(f"watch: iptables {' '.join(args)} failed: {done.stderr.strip()[:300]}")
    return done


def chain_present() -> bool:
    """Whether this host guards a run network (run-network.sh made the hook)."""
    if shutil.which("iptables") is None:
        return False
    listed = _iptables("-S", CHAIN, check=False)
    if listed.returncode != 0 and "denied" in listed.stderr.lower():
        raise FirewallError("watch: opening the run network's preview hook needs root "
                            f"(iptables: {listed.stderr.strip()[:200]})")
    return listed.returncode == 0


def _start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read(4096).decode("ascii", "replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    fields = stat.rsplit(")", 1)[-1].split()
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def _owner_comment() -> str:
    pid = os.getpid()
    return f"{_TAG} pid={pid} start={_start_ticks(pid) or 0}"


def _rule(address: str, port: int, comment: str) -> list[str]:
    return ["-d", address, "-p", "tcp", "--dport", str(port), "-m", "comment", "--comment", comment,
            "-j", "ACCEPT"]


def rules() -> list[str]:
    """The chain's rules as ``iptables -S`` prints them (``-A TCAB-RUN-PREVIEW …``)."""
    listed = _iptables("-S", CHAIN).stdout.splitlines()
    return [line for line in listed if line.startswith(f"-A {CHAIN} ")]


def remove_stale() -> int:
    """Delete the rules whose owning tcab process is gone; how many (0 on a
    host without the chain, or where iptables cannot be read: not root)."""
    if shutil.which("iptables") is None:
        return 0
    listed = _iptables("-S", CHAIN, check=False)
    if listed.returncode != 0:
        return 0
    removed = 0
    for line in [ln for ln in listed.stdout.splitlines() if ln.startswith(f"-A {CHAIN} ")]:
        owner = _OWNER.search(line)
        if owner is None:
            continue  # not ours: left alone
        pid, start = int(owner.group(1)), int(owner.group(2))
        if _start_ticks(pid) == start:
            continue  # still watching
        # iptables -S prints the rule as -A takes it: delete it by the same words.
        spec = line.split()[2:]
        spec = [w.strip('"') for w in _join_quoted(spec)]
        if _iptables("-D", CHAIN, *spec, check=False).returncode == 0:
            removed += 1
    return removed


def _join_quoted(words: list[str]) -> list[str]:
    """Rejoin a quoted comment that ``split()`` cut at its spaces."""
    out: list[str] = []
    buf: list[str] | None = None
    for w in words:
        if buf is not None:
            buf.append(w)
            if w.endswith('"'):
                out.append(" ".join(buf))
                buf = None
        elif w.startswith('"') and not (len(w) > 1 and w.endswith('"')):
            buf = [w]
        else:
            out.append(w)
    if buf:
        out.append(" ".join(buf))
    return out


@contextlib.contextmanager
def open_port(address: str, port: int) -> Iterator[bool]:
    """Accept TCP to ``address:port`` from the run network while the block
    runs; yields whether a rule was added (False: no chain on this host).
    Raises FirewallError when iptables fails."""
    if not chain_present():
        yield False
        return
    remove_stale()
    rule = _rule(address, port, _owner_comment())
    if _iptables("-C", CHAIN, *rule, check=False).returncode != 0:
        _iptables("-A", CHAIN, *rule)
    try:
        yield True
    finally:
        _iptables("-D", CHAIN, *rule, check=False)
