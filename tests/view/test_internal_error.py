"""A run stopped by a bug in tcab is shown as such: ``tcab view``'s run page
shows its traceback (escaped, redacted), and ``tcab report`` counts it in a
column of its own (issue 20: "shown by tcab view and tcab report")."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re

from tcab.runs import RunOptions, execute_run
from tests.support.function_runtime import FunctionRuntime
from tests.support.settings import run_tcab

SECRET = "tcab-view-secret-77c1"


class BrokenStart(FunctionRuntime):
    def start(self, spec):
        raise AttributeError(f"no attribute <script>alert({SECRET!r})</script>")


def _get(app, path: str) -> tuple[int, str]:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "client": ("127.0.0.1", 4000), "headers": [(b"host", b"127.0.0.1:8765")]}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, app(scope, receive, send)).result()
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body.decode("utf-8", "replace")


def test_the_run_page_and_the_report_show_an_internal_error(settings, e2e_case, scripted) -> None:
    from tcab.view.app import ViewConfig, create_app

    harness = scripted("unused", args=["-c", "session-marker"])
    options = RunOptions(runtime=BrokenStart([]), secrets=("VIEW_SECRET",), env={"VIEW_SECRET": SECRET})
    record = execute_run(settings, e2e_case, e2e_case.variant(None), harness, options)
    assert record.status == "internal_error"

    app = create_app(ViewConfig(settings.results_db, settings.results_dir, settings.catalog_dir))
    status, page = _get(app, f"/runs/{record.id}")
    assert status == 200
    assert "Internal error" in page and "and stopped it" in page
    assert "Traceback (most recent call last)" in page and "AttributeError" in page
    assert "&lt;script&gt;" in page and "<script>alert" not in page  # escaped
    assert SECRET not in page

    result = run_tcab(settings, "report", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert '"internal_error": 1' in json.dumps(doc), result.stdout[:2000]
    text = run_tcab(settings, "report")
    assert text.returncode == 0 and re.search(r"\bbug\b", text.stdout), text.stdout  # its column
