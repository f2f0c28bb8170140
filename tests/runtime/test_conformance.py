"""What "a backend works" means, run against every backend (docker: the real
Podman). Every test uses a real container and the ``box`` fixture checks
that none is left afterwards. Docker-specific checks: test_docker.py.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from tcab.errors import ImageNotFound, RuntimeBackendError, RuntimeSettingsError
from tcab.runtime import RUN_USER, CollectLimits, ContainerSpec, ExecEnd, ExecOptions, get_runtime


def _ps(rt, cid) -> str:
    # A pod has one unprivileged user, who owns every process: no root needed.
    user = RUN_USER if rt.name == "kubernetes" else "root"
    return rt.exec(cid, ["ps", "-eo", "user,stat,args"], ExecOptions(user=user)).stdout


def test_unknown_backend_lists_the_known_ones() -> None:
    with pytest.raises(RuntimeSettingsError, match="known: docker"):  # bad input, not the engine
        get_runtime("nope")


def test_exec_streams_lines_and_reports_exit_code(runtime, box) -> None:
    seen: list[tuple[str, str]] = []
    res = runtime.exec(box, ["sh", "-c", "id -un; pwd; echo oops >&2; printf 'no-newline'; exit 7"],
                              ExecOptions(on_output=lambda s, line, t: seen.append((s, line))))
    assert res.end is ExecEnd.EXITED and res.exit_code == 7 and not res.ok
    assert ("stdout", "tcab") in seen and ("stdout", "/work") in seen
    assert ("stderr", "oops") in seen and ("stdout", "no-newline") in seen
    assert "oops" in res.stderr
    if runtime.name == "kubernetes":
        # No privilege escalation in a pod: root is refused, never faked.
        with pytest.raises(RuntimeBackendError, match="refused"):
            runtime.exec(box, ["id", "-u"], ExecOptions(user="root"))
        env = runtime.exec(box, ["sh", "-c", "id -u; echo $X"], ExecOptions(env={"X": "1"}))
        assert env.ok and env.stdout.split() == ["1000", "1"]
        return
    root = runtime.exec(box, ["id", "-u"], ExecOptions(user="root", env={"X": "1"}))
    assert root.ok and root.stdout.strip() == "0"


def test_run_user_environment(runtime, box) -> None:
    res = runtime.exec(box, ["sh", "-c", "echo $PATH; npm config get prefix; stat -c %U /work"])
    path, prefix, owner = res.stdout.split()
    assert path.startswith("/home/tcab/.npm-global/bin:/home/tcab/.local/bin:")
    assert prefix == "/home/tcab/.npm-global" and owner == "tcab"


def test_timeout_kills_the_whole_process_tree_and_keeps_output(runtime, box) -> None:
    script = "echo before; (sleep 300; echo never) & sleep 301"
    t0 = time.monotonic()
    res = runtime.exec(box, ["sh", "-c", script], ExecOptions(timeout_s=1.0))
    assert time.monotonic() - t0 < 10
    assert res.end is ExecEnd.TIMED_OUT and "before" in res.stdout
    assert "sleep 30" not in _ps(runtime, box)


def test_idle_window_counts_only_output(runtime, box) -> None:
    script = "for i in 1 2 3 4; do echo tick $i; sleep 0.4; done; sleep 300"
    res = runtime.exec(box, ["sh", "-c", script], ExecOptions(idle_timeout_s=1.2))
    # Ticks every 0.4 s kept it alive; the silence afterwards ended it.
    assert res.end is ExecEnd.IDLE and "tick 4" in res.stdout
    assert res.duration_s >= 1.6 + 1.2 - 0.3
    assert "sleep 300" not in _ps(runtime, box)


def test_cancel_kills_the_command(runtime, box) -> None:
    flag = threading.Event()
    threading.Timer(0.5, flag.set).start()
    res = runtime.exec(box, ["sh", "-c", "echo go; sleep 300"], ExecOptions(cancel=flag.is_set))
    assert res.end is ExecEnd.CANCELED and "go" in res.stdout
    assert "sleep 300" not in _ps(runtime, box)


def test_copy_in_and_out_round_trip(runtime, box, tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "dir").mkdir(parents=True)
    (src / "dir" / "a.txt").write_text("alpha\n")
    (src / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (src / "run.sh").chmod(0o755)
    os.symlink("dir/a.txt", src / "link")
    runtime.copy_in(box, src)
    res = runtime.exec(box, ["sh", "-c", "stat -c '%U %n' dir/a.txt; ./run.sh; cat link; "
                                          "echo new > dir/b.txt; ln dir/b.txt dir/b-hard"])
    assert res.ok, res.output
    assert "tcab dir/a.txt" in res.stdout and "hi" in res.stdout and "alpha" in res.stdout
    report = runtime.copy_out(box, "/work", tmp_path / "out")
    out = tmp_path / "out"
    assert report.refused == ()
    assert (out / "dir/b.txt").read_text() == "new\n" and (out / "dir/b-hard").read_text() == "new\n"
    assert os.readlink(out / "link") == "dir/a.txt"
    assert os.access(out / "run.sh", os.X_OK)
    single = runtime.copy_out(box, "/work/dir/b.txt", tmp_path / "one")
    assert single.files == 1 and (tmp_path / "one" / "b.txt").read_text() == "new\n"


def test_hostile_tree_from_a_real_container(runtime, box, tmp_path: Path) -> None:
    # No device file here: containers lack CAP_MKNOD, even as root (the
    # crafted-tar tests in test_collect.py cover devices).
    setup = "ln -s /etc/passwd passwd && ln -s ../../../etc/shadow up && mkfifo pipe && echo fine > fine.txt"
    assert runtime.exec(box, ["sh", "-c", setup]).ok
    report = runtime.copy_out(box, "/work", tmp_path / "out")
    reasons = {r.path: r.reason for r in report.refused}
    assert set(reasons) == {"passwd", "up", "pipe"}
    assert "outside" in reasons["passwd"] and reasons["pipe"] == "FIFO refused"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["fine.txt"]


def test_size_cap_from_a_real_container(runtime, box, tmp_path: Path) -> None:
    assert runtime.exec(box, ["sh", "-c", "head -c 300000 /dev/urandom > big.bin"]).ok
    report = runtime.copy_out(box, "/work", tmp_path / "out", CollectLimits(max_bytes=100_000))
    assert report.truncated and not any((tmp_path / "out").iterdir())


def test_backend_failures_raise_instead_of_returning_results(runtime, base_image, tmp_path: Path) -> None:
    with pytest.raises(ImageNotFound, match="make images"):
        missing = "localhost/tcab/does-not-exist:never"
        if runtime.name == "kubernetes":  # the node pulls when the pod starts
            runtime.start(ContainerSpec(image=missing, run_id="test-missing"))
        runtime.ensure_image(missing)
    assert runtime.list_run_containers("test-missing") == []
    cid = runtime.start(ContainerSpec(image=base_image, run_id="test-gone"))
    runtime.remove(cid)
    runtime.remove(cid)  # removing twice is fine
    with pytest.raises(RuntimeBackendError):
        runtime.exec(cid, ["true"])
    with pytest.raises(RuntimeBackendError):
        runtime.copy_out(cid, "/work", tmp_path / "out")


def test_ensure_image_records_a_digest(runtime, base_image) -> None:
    info = runtime.ensure_image(base_image)
    assert info.ref == base_image and not info.pulled
    if runtime.name == "kubernetes":  # a node resolves it when a pod starts: image_digest() has it then
        assert (info.id, info.digest) == ("", "")
        return
    assert info.id.startswith("sha256:") and "sha256:" in info.digest


def test_redaction_runs_on_the_stream_before_lines_and_tails(runtime, box) -> None:
    from tcab.runs.secrets import Redactor

    value = "sk-conformance-9f8e7d6c5b4a"
    seen: list[str] = []
    # The value is written a byte at a time, after 1 MiB - 5 bytes (the line
    # cut falls inside it), and again as the last bytes (a short tail cuts it).
    script = ('head -c 1048571 /dev/zero | tr "\\0" y; v="$V"; while [ -n "$v" ]; do r="${v#?}"; '
              'printf %s "${v%"$r"}"; v="$r"; done; sleep 0.3; echo; printf "end %s" "$V" >&2')
    res = runtime.exec(box, ["sh", "-c", script], ExecOptions(
        env={"V": value}, tail_bytes=12, redact=Redactor({"V": value}).stream,
        on_output=lambda s, line, t: seen.append(line)))
    assert res.ok
    text = "".join(seen) + res.stdout + res.stderr
    assert "".join(seen).count("[secret:V]") == 2
    assert not any(value[i:i + 6] in text for i in range(len(value) - 5))


def test_a_flood_is_read_with_backpressure(runtime, box) -> None:
    # A slow consumer must slow the command down, not buffer its output, and
    # the deadline holds however much output is waiting.
    status = Path("/proc/self/status")

    def vm(key: str) -> int:
        return int(next(ln.split()[1] for ln in status.read_text().splitlines() if ln.startswith(key + ":")))

    Path("/proc/self/clear_refs").write_text("5")
    base = vm("VmRSS")
    t0 = time.monotonic()
    res = runtime.exec(box, ["yes"], ExecOptions(timeout_s=6.0, on_output=lambda s, line, t: time.sleep(0.0002)))
    late = time.monotonic() - t0 - 6.0
    assert res.end is ExecEnd.TIMED_OUT and "y\ny\n" in res.stdout
    # kubernetes: the kill and the last output share one 5 s budget; docker
    # drains 5 s after its kill returns.
    bound = 9 if runtime.name == "kubernetes" else 15
    assert late < bound, f"TIMED_OUT came {late:.1f} s after the deadline"
    assert (vm("VmHWM") - base) * 1024 < 32 * 1024 * 1024
    assert " yes" not in _ps(runtime, box)


def test_the_run_user_cannot_stop_its_container(runtime, box) -> None:
    # PID 1 is the run's init: whatever the run user sends it, or tries to
    # trace it with, the container (a pod: its one container) keeps running,
    # so a command's own failure stays its own and never becomes `infrastructure`.
    trace = 'import ctypes; print("ptrace", ctypes.CDLL(None).ptrace(16, 1, 0, 0))'  # PTRACE_ATTACH
    attack = (f"python3 -c '{trace}'; kill -KILL 1; kill 1; kill -INT 1; kill -HUP 1; kill -QUIT 1; "
              "kill -STOP 1; kill -SEGV 1; kill -USR1 1; kill -TERM -1; kill -KILL -1; sleep 3")
    res = runtime.exec(box, ["sh", "-c", attack])
    assert "ptrace -1" in res.stdout  # refused
    assert res.exit_code == 143  # `kill -TERM -1` took the exec's own setsid
    time.sleep(1)
    state = runtime.exec(box, ["sh", "-c", "cut -d' ' -f3 /proc/1/stat"])
    assert state.ok and state.stdout.strip() == "S"  # running, neither stopped nor traced


def test_the_init_reaps_what_a_killed_command_orphans(runtime, box) -> None:
    # The orphans of a killed command are reparented to PID 1: reaped, not
    # left as zombies that fill the pid table over a long run.
    res = runtime.exec(box, ["sh", "-c", "(sleep 300 & sleep 301) & sleep 302"], ExecOptions(timeout_s=1.0))
    assert res.end is ExecEnd.TIMED_OUT
    time.sleep(2)
    zombies = [ln for ln in _ps(runtime, box).splitlines()[1:] if ln.split()[1].startswith("Z")]
    assert zombies == []


def test_image_digest_of_a_running_container(runtime, box, base_image) -> None:
    running = runtime.image_digest(box)
    assert "sha256:" in running.digest and running.id
    # What the engine now reports for the reference is what the container runs.
    assert runtime.ensure_image(base_image).digest == running.digest
    with pytest.raises(RuntimeBackendError):
        runtime.image_digest("no-such-container-0000")


# -- hostile trees at collection (issue 21 items 10, 12, 13, 16, 17) ---------


@pytest.mark.timeout(120)
def test_sparse_files_count_their_apparent_size_before_they_are_read(runtime, box, tmp_path: Path) -> None:
    # 20 files of 1 GiB - 1, made in a blink: reading their holes took the
    # engine minutes. Their headers alone cross the cap, so nothing is read.
    assert runtime.exec(box, ["sh", "-c", "for i in $(seq 1 20); do truncate -s 1073741823 s$i; done"]).ok
    t0 = time.monotonic()
    report = runtime.copy_out(box, "/work", tmp_path / "out", CollectLimits(max_bytes=1 << 20, max_seconds=60))
    assert report.truncated and "size cap" in report.refused[0].reason
    assert time.monotonic() - t0 < 30


@pytest.mark.timeout(120)
def test_collection_time_is_bounded_by_its_own_clock(runtime, box, tmp_path: Path) -> None:
    # Under the byte cap, yet slow to read: the copy's own clock stops it.
    assert runtime.exec(box, ["sh", "-c", "truncate -s 1900M sparse.bin"]).ok
    t0 = time.monotonic()
    report = runtime.copy_out(box, "/work", tmp_path / "out", CollectLimits(max_seconds=1.5))
    took = time.monotonic() - t0
    assert report.truncated and "took over 1.5 s" in report.refused[0].reason
    assert took < 25 and not any((tmp_path / "out").iterdir())


@pytest.mark.timeout(120)
def test_a_sparse_tree_within_the_caps_is_collected_whole(runtime, box, tmp_path: Path) -> None:
    # Under every cap and inside the clock: collected (holes kept as holes),
    # never a failed copy (a run would be recorded `infrastructure`).
    mib = 150  # ~20 s through the kubernetes stand-in at low load (600 MiB: 109 s)
    assert runtime.exec(box, ["sh", "-c", f"truncate -s {mib}M sparse.bin && echo kept > small.txt"]).ok
    report = runtime.copy_out(box, "/work", tmp_path / "out", CollectLimits(max_seconds=100))
    assert not report.truncated, report.refused[:1]
    assert report.files == 2 and report.refused == ()
    assert (tmp_path / "out" / "sparse.bin").stat().st_size == mib << 20
    assert (tmp_path / "out" / "small.txt").read_text() == "kept\n"


_REWRITER = ("setsid sh -c 'while :; do for i in 1 2 3 4 5 6 7 8; do head -c 200000 /dev/urandom > hot$i.bin; "
             ": > hot$i.bin; done; done' >/dev/null 2>&1 </dev/null &")


@pytest.mark.timeout(120)
def test_a_process_rewriting_files_during_collection_is_the_runs_outcome(runtime, box, tmp_path: Path) -> None:
    # What the run's own processes do while /work is collected never makes
    # the copy fail (a run would be recorded `infrastructure` and retried).
    setup = "mkdir -p keep && for i in $(seq 1 73); do echo $i > keep/f$i.txt; done; " + _REWRITER + " sleep 1"
    assert runtime.exec(box, ["sh", "-c", setup]).ok
    for attempt in range(3):
        report = runtime.copy_out(box, "/work", tmp_path / f"out{attempt}")
        assert not report.truncated, report.refused[:1]
        assert len(list((tmp_path / f"out{attempt}" / "keep").iterdir())) == 73
    assert "hot1" not in _ps(runtime, box)  # the run's processes are gone once it is collected


_FORGER = r"""
import io, os, signal, tarfile, time
me = os.getpid()
def forged():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name in ("work/forged.txt", "work/../escape.txt"):
            info = tarfile.TarInfo(name); info.size = 6; t.addfile(info, io.BytesIO(b"forged"))
    return buf.getvalue()
end = time.time() + 60
while time.time() < end:
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        try:
            cmd = open(f"/proc/{p}/cmdline", "rb").read()
        except OSError:
            continue
        if cmd.startswith(b"tar\0-c"):
            pid = int(p)
            os.kill(pid, signal.SIGSTOP)
            with open(f"/proc/{pid}/fd/1", "wb") as fh:
                fh.write(forged())
            os.kill(pid, signal.SIGCONT)
            raise SystemExit
    time.sleep(0.002)
"""


@pytest.mark.timeout(120)
def test_a_daemon_left_by_the_run_cannot_forge_the_collection_stream(runtime, box, tmp_path: Path) -> None:
    # A daemon that stops the collector's tar, writes its own archive to
    # tar's stdout and resumes it: no forged entry, no real file lost.
    script = ("for i in $(seq 1 35); do echo real$i > r$i.txt; done; cat > /tmp/forge.py <<'EOF'\n"
              f"{_FORGER}\nEOF\nsetsid python3 /tmp/forge.py >/dev/null 2>&1 </dev/null & sleep 0.5")
    assert runtime.exec(box, ["sh", "-c", script]).ok
    report = runtime.copy_out(box, "/work", tmp_path / "out")
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted(f"r{i}.txt" for i in range(1, 36)), (names, report.refused[:3])
    assert not report.truncated and report.refused == ()


@pytest.mark.timeout(120)
def test_unreadable_files_count_against_max_entries_and_are_listed_bounded(runtime, box, tmp_path: Path) -> None:
    from tcab.runtime.collect import MAX_REFUSALS_LISTED

    n = MAX_REFUSALS_LISTED + 200
    setup = f"mkdir u && cd u && seq 1 {n} | xargs touch && chmod 000 * && echo ok > ../ok.txt"
    assert runtime.exec(box, ["sh", "-c", setup]).ok
    over = runtime.copy_out(box, "/work", tmp_path / "over", CollectLimits(max_entries=n // 2))
    assert over.truncated and "entries" in over.refused[0].reason
    report = runtime.copy_out(box, "/work", tmp_path / "out")
    assert (tmp_path / "out" / "ok.txt").read_text() == "ok\n"
    if runtime.name == "kubernetes":  # the pod's tar runs as the run user: it cannot read them
        assert report.refused_count == n and len(report.refused) == MAX_REFUSALS_LISTED + 1
        assert "unreadable" in report.refused[0].reason and f"{n} in all" in report.refused[-1].reason
    else:  # the engine archives as root
        assert report.files == n + 1 and report.refused == ()


# -- the host is not reachable from a run (issue 21 item 18) ------------------


@pytest.mark.timeout(120)
def test_a_run_reaches_no_host_address_but_reaches_the_internet(runtime, box, podman_runtime) -> None:
    from tests.runtime.host_listener import HostListener, connect_script, host_addresses

    addresses = host_addresses(podman_runtime.api)
    assert "10.88.0.1" in addresses  # the Podman gateway of the default network
    listener = HostListener()
    try:
        res = runtime.exec(box, ["sh", "-c", connect_script(addresses, listener.port)],
                           ExecOptions(timeout_s=60))
        time.sleep(0.5)
    finally:
        listener.close()
    assert res.ok and res.stdout.count("closed ") == len(addresses), res.output
    assert listener.seen == []
    # Outbound stays open: package registries (and model APIs) answer.
    out = runtime.exec(box, ["sh", "-c", 'timeout 10 bash -c "echo > /dev/tcp/pypi.org/443" && echo reached'],
                       ExecOptions(timeout_s=30))
    assert "reached" in out.stdout, out.output
