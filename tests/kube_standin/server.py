"""The stand-in API server's routes: exactly the calls the kubernetes backend makes.

GET /version; POST (also as ``dryRun=All``), GET (one and list by label
selector), DELETE /api/v1/namespaces/{ns}/pods; GET/POST .../pods/{name}/exec as a WebSocket.
Requests need the bearer token; answers are ``metav1.Status`` on failure,
as a real server sends them (the client reads ``message`` and ``code``).
"""

from __future__ import annotations

import asyncio
import json
import time

from aiohttp import web

from tests.kube_standin.execws import handle_exec
from tests.kube_standin.pods import PodStore
from tests.kube_standin.validation import KUBE_VERSION, pod_problems


def status(code: int, reason: str, message: str) -> web.Response:
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}
    return web.json_response(body, status=code)


def make_app(store: PodStore, token: str) -> web.Application:
    faults = store.faults

    def allowed(request: web.Request, verb: str, ns: str | None = None) -> web.Response | None:
        if request.headers.get("Authorization") != f"Bearer {token}":
            return status(401, "Unauthorized", "Unauthorized")
        if verb in faults.forbidden:
            resource = "pods/exec" if verb == "exec" else "pods"
            return status(403, "Forbidden", f'{resource} is forbidden: User "system:serviceaccount:tcab:driver" '
                                            f'cannot {verb} resource "{resource}" in API group "" in the namespace "{ns}"')
        return None

    async def version(request: web.Request) -> web.Response:
        if (denied := allowed(request, "version")) is not None:
            return denied
        major, minor, _ = KUBE_VERSION.split(".")
        return web.json_response({
            "major": major, "minor": minor, "gitVersion": f"v{KUBE_VERSION}-tcab-standin",
            "gitCommit": "0" * 40, "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z",
            "goVersion": "go1.22", "compiler": "gc", "platform": "linux/amd64"})

    async def create(request: web.Request) -> web.Response:
        ns = request.match_info["ns"]
        if (denied := allowed(request, "create", ns)) is not None:
            return denied
        if ns not in store.namespaces:
            return status(404, "NotFound", f'namespaces "{ns}" not found')
        try:
            body = json.loads(await request.read())
        except ValueError as exc:
            return status(400, "BadRequest", f"the body is not JSON: {exc}")
        problems = pod_problems(body, ns)
        if problems:
            name = (body.get("metadata") or {}).get("name") if isinstance(body, dict) else None
            return status(422, "Invalid", f'Pod "{name}" is invalid: ' + "; ".join(problems))
        if (ns, body["metadata"]["name"]) in store.pods:
            return status(409, "AlreadyExists", f'pods "{body["metadata"]["name"]}" already exists')
        dry = request.query.getall("dryRun", [])
        if dry:
            # As a real server: "All" is the only value; authorized, admitted
            # and validated like a create (above), never stored or started.
            if dry != ["All"]:
                return status(400, "BadRequest", f"Invalid dryRun value {dry!r}: valid values are 'All'")
            store.dry_runs.append(body)
            return web.json_response({**body, "status": {"phase": "Pending"}}, status=201)
        pod = store.add(ns, body)
        return web.json_response(pod.obj, status=201)

    async def read(request: web.Request) -> web.Response:
        ns, name = request.match_info["ns"], request.match_info["name"]
        if (denied := allowed(request, "get", ns)) is not None:
            return denied
        pod = store.pods.get((ns, name))
        if pod is None:
            return status(404, "NotFound", f'pods "{name}" not found')
        return web.json_response(pod.obj)

    async def listing(request: web.Request) -> web.Response:
        ns = request.match_info["ns"]
        if (denied := allowed(request, "list", ns)) is not None:
            return denied
        items = [p.obj for p in store.select(ns, request.query.get("labelSelector", ""))]
        return web.json_response({"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"},
                                  "items": items})

    async def delete(request: web.Request) -> web.Response:
        ns, name = request.match_info["ns"], request.match_info["name"]
        if (denied := allowed(request, "delete", ns)) is not None:
            return denied
        pod = await store.delete(ns, name)
        if pod is None:
            return status(404, "NotFound", f'pods "{name}" not found')
        return web.json_response(pod.obj)

    async def exec_(request: web.Request) -> web.StreamResponse:
        ns, name = request.match_info["ns"], request.match_info["name"]
        store.exec_urls.append(str(request.rel_url))
        if (denied := allowed(request, "exec", ns)) is not None:
            return denied
        pod = store.pods.get((ns, name))
        if pod is None:
            return status(404, "NotFound", f'pods "{name}" not found')
        container = request.query.get("container")
        names = [c["name"] for c in pod.obj["spec"]["containers"]]
        if container not in (None, *names):
            return status(400, "BadRequest", f"container {container} is not valid for pod {name}")
        if not pod.running:
            return status(400, "BadRequest", f"pod {name} is not running (phase {pod.obj['status'].get('phase')})")
        if faults.exec_stall_s:
            # Hang until the stall ends, the fault is cleared or the client leaves.
            end = time.monotonic() + faults.exec_stall_s
            while faults.exec_stall_s and time.monotonic() < end and request.transport is not None \
                    and not request.transport.is_closing():
                await asyncio.sleep(0.1)
            return status(504, "Timeout", "the kubelet did not answer the exec upgrade")
        return await handle_exec(request, pod.container, faults)

    app = web.Application(client_max_size=64 << 20)
    base = "/api/v1/namespaces/{ns}/pods"
    app.router.add_get("/version", version)
    app.router.add_get("/version/", version)
    app.router.add_post(base, create)
    app.router.add_get(base, listing)
    app.router.add_get(base + "/{name}", read)
    app.router.add_delete(base + "/{name}", delete)
    app.router.add_get(base + "/{name}/exec", exec_)
    app.router.add_post(base + "/{name}/exec", exec_)
    return app
