"""Each backend translates only the library exceptions it knows into
RuntimeBackendError; an exception of tcab's own code passes through as it
is (issue 20, defect 3: a TypeError in our code became ``infrastructure``).
Run on every backend, against the real engine (docker: Podman; kubernetes:
the stand-in API server)."""

from __future__ import annotations

import pytest

from tcab.errors import RuntimeBackendError
from tcab.runtime import ExecOptions


class OurBug(TypeError):
    """Stands for a bug in tcab's code called from inside a backend method."""


def _sink_with_a_bug(stream: str, line: str, t: float) -> None:
    if line == "trigger":
        raise OurBug("'NoneType' object is not subscriptable")


def test_a_bug_in_the_output_sink_is_not_the_engines_failure(runtime, box) -> None:
    opts = ExecOptions(on_output=_sink_with_a_bug, timeout_s=60)
    with pytest.raises(OurBug) as caught:
        runtime.exec(box, ["sh", "-c", "echo before; echo trigger; echo after"], opts)
    assert not isinstance(caught.value, RuntimeBackendError)
    # The container is still there and answers: nothing of the engine failed.
    result = runtime.exec(box, ["echo", "still here"], ExecOptions(timeout_s=60))
    assert result.ok and result.stdout.strip() == "still here"


def test_a_bug_in_the_redactor_is_not_the_engines_failure(runtime, box) -> None:
    def broken_filter():
        raise OurBug("redactor factory broke")

    with pytest.raises(OurBug):
        runtime.exec(box, ["echo", "x"], ExecOptions(redact=broken_filter, timeout_s=60))


def test_the_engine_failing_is_still_a_backend_error(runtime, box) -> None:
    runtime.remove(box)
    with pytest.raises(RuntimeBackendError):
        runtime.exec(box, ["echo", "x"], ExecOptions(timeout_s=60))
