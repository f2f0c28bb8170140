"""Fixtures for the harness tests: the image with the agent CLIs preinstalled
and the scripted fake model (built once, cached by the digest of its inputs),
and harness definitions derived from the shipped ones that point each CLI
at the fake model on the run container's loopback."""

from __future__ import annotations

import hashlib
import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from tcab.settings import Settings
from tests.support.harness_files import write_harness
from tests.support.paths import REPO

FAKE = Path(__file__).parent / "fake_model"
PORT = 8787
LABEL = "org.tcab.definition-digest"


@pytest.fixture(scope="session")
def cli_image(podman_runtime, base_image) -> str:
    """localhost/tcab/harness-clis-test: built when its inputs changed."""
    base_id = podman_runtime.ensure_image(base_image, pull=False).id
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(FAKE.iterdir()) if p.is_file())
                            + base_id.encode()).hexdigest()
    ref = "localhost/tcab/harness-clis-test:latest"
    found = subprocess.run(["podman", "image", "inspect", "--format", f"{{{{index .Labels \"{LABEL}\"}}}}", ref],
                           capture_output=True, text=True)
    if found.returncode != 0 or found.stdout.strip() != digest:
        built = subprocess.run(["podman", "build", "--pull=never", "--label", f"{LABEL}={digest}",
                                "--build-arg", f"BASE={base_image}", "-t", ref, str(FAKE)],
                               capture_output=True, text=True, timeout=1500)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return ref


def start_fake_model(script: str, fake_args: str = "") -> str:
    """A shell line: start the fake model in its own session, wait until it answers."""
    return (f"setsid python3 /opt/fake-model/fake_model.py --script {script} --port {PORT} {fake_args} "
            f"--log /tmp/fake-model.log >/tmp/fake-model.out 2>&1 </dev/null & "
            f"for i in $(seq 100); do curl -sf http://127.0.0.1:{PORT}/health >/dev/null && exit 0; "
            f"sleep 0.1; done; cat /tmp/fake-model.out; exit 1")


# How each CLI is pointed at the fake model: its documented base-URL setting
# (environment, a config file written before the session, or the definition's
# own argument with the URL replaced: "args" maps old -> new text).
BASE_URL = f"http://127.0.0.1:{PORT}"
POINTING = {
    "claude-code": {"env": {"ANTHROPIC_BASE_URL": BASE_URL}, "setup": ""},
    # The definition declares its provider (with its retry limits) in -c flags.
    "codex": {"env": {}, "setup": "", "args": {"https://api.openai.com/v1": f"{BASE_URL}/v1"}},
    # GOOGLE_GEMINI_BASE_URL alone selects the "gateway" auth type, which
    # gemini-cli 0.61 then rejects ("Invalid auth method selected"); the
    # settings file selects the API-key auth, which honours the base URL.
    "gemini-cli": {"env": {"GOOGLE_GEMINI_BASE_URL": BASE_URL}, "setup": (
        "mkdir -p ~/.gemini && echo '{\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}' "
        "> ~/.gemini/settings.json && ")},
    # litellm's OpenAI route (OPENAI_API_BASE); the model is openai/<name>. Aider's
    # edits are text: the whole-file format, which the fake model's --textual writes.
    "aider": {"env": {"OPENAI_API_BASE": f"{BASE_URL}/v1", "OPENAI_API_KEY": "sk-fake-openai"}, "setup": "",
              "fake": "--textual", "before_message": ["--edit-format", "whole"]},
    "opencode": {"env": {"OPENCODE_CONFIG_CONTENT": json.dumps(
        {"provider": {"anthropic": {"options": {"baseURL": f"{BASE_URL}/v1"}}}})}, "setup": ""},
}


@pytest.fixture
def pointed(settings: Settings):
    """pointed(slug, script, replace=None, extra=()) -> the shipped definition of
    ``slug`` whose install step starts the fake model with ``script`` (the CLI
    is in the image); ``replace`` maps text in its arguments to a test's value,
    ``extra`` are arguments added before the model's (a CLI's own limits),
    ``setup`` replaces the shell line that configures the CLI; ``base_url``
    points the CLI elsewhere than the fake model (e.g. a port where nothing
    listens: every connection refused)."""

    def make(slug: str, script: str, replace: dict[str, str] | None = None, extra: tuple[str, ...] = (),
             setup: str | None = None, base_url: str | None = None):
        table = tomllib.loads((REPO / "harnesses" / f"{slug}.toml").read_text())
        point = POINTING[slug]
        table["install"] = (point["setup"] if setup is None else setup) + start_fake_model(script, point.get("fake", ""))
        env = point["env"] if base_url is None else {k: v.replace(BASE_URL, base_url) for k, v in point["env"].items()}
        table["env"] = {**table.get("env", {}), **env}
        args = point.get("args", {})
        if base_url is not None:
            args = {old: new.replace(BASE_URL, base_url) for old, new in args.items()}
        for old, new in {**args, **(replace or {})}.items():
            assert any(old in a for a in table["args"]), f"{slug}: no argument holds {old!r}"
            table["args"] = [a.replace(old, new) for a in table["args"]]
        if extra:
            at = table["args"].index("{model_args}")
            table["args"][at:at] = list(extra)
        if "before_message" in point:
            at = table["args"].index("--message")
            table["args"][at:at] = point["before_message"]
        return write_harness(settings, table)

    return make
