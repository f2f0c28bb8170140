"""A scripted model provider for the harness tests (stdlib only).

It runs INSIDE the run container on 127.0.0.1, so no traffic leaves the
container, and answers the APIs the agent CLIs call, streaming or not:

- Anthropic Messages ``POST /v1/messages`` (Claude Code);
- OpenAI Responses ``POST /v1/responses`` (Codex);
- OpenAI Chat Completions ``POST /v1/chat/completions`` (OpenCode, Aider);
- Gemini ``POST /v1beta/models/<m>:streamGenerateContent|generateContent``
  (Gemini CLI), ``:countTokens``.

Scripts (``--script``):

- ``write-file``: turn 1 says TEXT_1 and calls the CLI's own file-writing
  (or shell) tool to write FILE with CONTENT; turn 2 says FINAL. Each turn
  reports the usage in TURNS. Which turn a request gets is read from the
  conversation it carries (how many tool calls it already holds), so the
  server keeps no state. A request without tools (a CLI's side call:
  titles, quota checks, next-speaker checks) gets a short answer with zero
  usage, so the script's totals stay exact.
- ``unauthorized``: every model request answers 401 with the API's error.
- ``server-error``: every model request answers 500 with the API's error
  (a provider that is up but failing: the CLIs retry, then give up).
- ``silent``: accepts every request and never answers.
- ``stalled``: answers 200 and opens the event stream, then sends nothing
  (a stream that stalls: what a CLI's stream idle timeout is for).

Every request is logged as one JSON line to ``--log`` (path, tools seen,
turn chosen) for debugging a CLI that does something unexpected.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FILE = "hello.txt"
CONTENT = "hello from the scripted model\n"
TEXT_1 = "I will write hello.txt now."
FINAL = "Done: hello.txt holds the greeting."
TURNS = ({"input": 120, "output": 30}, {"input": 180, "output": 12})
WORKDIR = "/work"


def expected_tokens() -> dict[str, int]:
    """The usage a harness should report for the write-file script."""
    return {"input": sum(t["input"] for t in TURNS), "output": sum(t["output"] for t in TURNS)}


SHELL_COMMAND = f"printf '%s' '{CONTENT.strip()}' > {FILE} && echo >> {FILE}"


def _tool_call(names: list[str], schemas: dict[str, dict]) -> tuple[str, dict] | None:
    """Pick the CLI's own write tool (or its shell) and build arguments for it."""
    path = f"{WORKDIR}/{FILE}"
    for name in names:
        low = name.lower()
        props = (schemas.get(name) or {}).get("properties") or {}
        if low in ("write", "write_file", "writefile", "create_file"):
            key = next((k for k in ("file_path", "filePath", "path", "absolute_path") if k in props), "file_path")
            return name, {key: path, "content": CONTENT}
    for name in names:
        low = name.lower()
        props = (schemas.get(name) or {}).get("properties") or {}
        if low in ("shell", "bash", "exec_command", "shell_command", "run_shell_command", "local_shell"):
            key = next((k for k in ("command", "cmd") if k in props), "command")
            kind = ((props.get(key) or {}).get("type"))
            value = ["bash", "-lc", SHELL_COMMAND] if kind == "array" else SHELL_COMMAND
            args = {key: value}
            if "workdir" in props:
                args["workdir"] = WORKDIR
            if "description" in props:
                args["description"] = "write the file"
            return name, args
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server

    def log_message(self, *args) -> None:  # quiet: --log has the requests
        pass

    # -- plumbing ------------------------------------------------------------

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def _json(self, code: int, obj: dict) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, obj: dict | str, event: str | None = None) -> None:
        data = obj if isinstance(obj, str) else json.dumps(obj)
        chunk = (f"event: {event}\n" if event else "") + f"data: {data}\n\n"
        self.wfile.write(chunk.encode())
        self.wfile.flush()

    def _log(self, **fields) -> None:
        self.server.record({"path": self.path, **fields})

    def do_GET(self) -> None:
        if self.path.startswith("/health"):
            self._json(200, {"ok": True})
            return
        if "/models" in self.path:  # model lists (OpenAI / Gemini shapes)
            self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}],
                             "models": [{"name": "models/fake-model"}]})
            return
        self._log(method="GET", answer=404)
        self._json(404, {"error": {"message": f"not found: {self.path}"}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._body()
        if self.server.dump:  # debugging: every request body, numbered
            self.server.seq += 1
            with open(f"{self.server.dump}/{self.server.seq:03d}.json", "w", encoding="utf-8") as f:
                json.dump({"path": self.path, "body": body}, f, indent=1)
        script = self.server.script
        path = self.path.split("?")[0]
        api = ("anthropic" if path.endswith("/messages") else
               "responses" if path.endswith("/responses") else
               "chat" if path.endswith("/chat/completions") else
               "gemini" if ":" in path and "/models/" in path else None)
        if api is None or path.endswith("/count_tokens") or path.endswith(":countTokens"):
            self._log(method="POST", answer="aux")
            if path.endswith(":countTokens"):
                self._json(200, {"totalTokens": 1})
            elif path.endswith("/count_tokens"):
                self._json(200, {"input_tokens": 1})
            else:
                self._json(404, {"error": {"message": f"not found: {path}"}})
            return
        if script == "silent":
            self._log(method="POST", api=api, answer="silent")
            while True:  # hold the request open forever
                time.sleep(3600)
        if script == "stalled":
            self._log(method="POST", api=api, answer="stalled")
            self._sse_start()  # the stream opens, then nothing ever comes
            while True:
                time.sleep(3600)
        if script == "server-error":
            self._log(method="POST", api=api, answer=500)
            if api == "anthropic":
                self._json(500, {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}})
            elif api == "gemini":
                self._json(500, {"error": {"code": 500, "message": "Internal error encountered.",
                                           "status": "INTERNAL"}})
            else:
                self._json(500, {"error": {"message": "The server had an error while processing your request.",
                                           "type": "server_error", "code": None}})
            return
        if script == "unauthorized":
            self._log(method="POST", api=api, answer=401)
            if api == "anthropic":
                self._json(401, {"type": "error", "error": {"type": "authentication_error",
                                                             "message": "invalid x-api-key"}})
            elif api == "gemini":
                self._json(401, {"error": {"code": 401, "message": "API key not valid.",
                                           "status": "UNAUTHENTICATED"}})
            else:
                self._json(401, {"error": {"message": "Incorrect API key provided: fake.",
                                           "type": "invalid_request_error", "code": "invalid_api_key"}})
            return
        getattr(self, f"_{api}")(body, path)

    # -- the script's turns ----------------------------------------------------

    def _turn(self, calls_so_far: int, has_tools: bool, names: list[str], schemas: dict) -> dict:
        """What to answer: {"text", "call": (name, args) | None, "usage"}."""
        if not has_tools:
            return {"text": "ok", "call": None, "usage": {"input": 0, "output": 0}, "aux": True}
        if calls_so_far == 0:
            call = _tool_call(names, schemas)
            if call is None:
                return {"text": f"no write tool among {names}", "call": None, "usage": TURNS[0], "aux": False}
            return {"text": TEXT_1, "call": call, "usage": TURNS[0], "aux": False}
        return {"text": FINAL, "call": None, "usage": TURNS[1], "aux": False}

    def _anthropic(self, body: dict, path: str) -> None:
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("name")]
        names = [t["name"] for t in tools]
        schemas = {t["name"]: t.get("input_schema") or {} for t in tools}
        calls = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant"
                    and isinstance(m.get("content"), list)
                    and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in m["content"]))
        turn = self._turn(calls, bool(tools), names, schemas)
        self._log(method="POST", api="anthropic", tools=names[:60], calls=calls, turn=turn["text"],
                  stream=bool(body.get("stream")), model=body.get("model"))
        model = body.get("model") or "fake-model"
        usage = turn["usage"]
        content: list[dict] = [{"type": "text", "text": turn["text"]}]
        if turn["call"]:
            content.append({"type": "tool_use", "id": f"toolu_fake{calls}", "name": turn["call"][0],
                            "input": turn["call"][1]})
        stop = "tool_use" if turn["call"] else "end_turn"
        msg_id = f"msg_fake{calls}{'aux' if turn['aux'] else ''}{time.monotonic_ns()}"
        if not body.get("stream"):
            self._json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                             "content": content, "stop_reason": stop, "stop_sequence": None,
                             "usage": {"input_tokens": usage["input"], "output_tokens": usage["output"],
                                       "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}})
            return
        self._sse_start()
        self._sse({"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": usage["input"], "output_tokens": 0,
                      "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}, "message_start")
        for i, block in enumerate(content):
            if block["type"] == "text":
                self._sse({"type": "content_block_start", "index": i,
                           "content_block": {"type": "text", "text": ""}}, "content_block_start")
                self._sse({"type": "content_block_delta", "index": i,
                           "delta": {"type": "text_delta", "text": block["text"]}}, "content_block_delta")
            else:
                self._sse({"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}},
                    "content_block_start")
                self._sse({"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(block["input"])}},
                    "content_block_delta")
            self._sse({"type": "content_block_stop", "index": i}, "content_block_stop")
        self._sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": usage["output"]}}, "message_delta")
        self._sse({"type": "message_stop"}, "message_stop")

    def _responses(self, body: dict, path: str) -> None:
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
        names = [t.get("name") or t.get("type") for t in tools]
        schemas = {(t.get("name") or t.get("type")): t.get("parameters") or {} for t in tools}
        items = body.get("input") if isinstance(body.get("input"), list) else []
        calls = sum(1 for it in items if isinstance(it, dict)
                    and it.get("type") in ("function_call", "local_shell_call", "custom_tool_call"))
        turn = self._turn(calls, bool(tools), names, schemas)
        self._log(method="POST", api="responses", tools=names, calls=calls, turn=turn["text"],
                  stream=bool(body.get("stream")), model=body.get("model"))
        usage = turn["usage"]
        resp_id = f"resp_fake{calls}"
        output: list[dict] = [{"type": "message", "id": f"msg_fake{calls}", "role": "assistant",
                               "status": "completed",
                               "content": [{"type": "output_text", "text": turn["text"], "annotations": []}]}]
        if turn["call"]:
            name, args = turn["call"]
            if name == "local_shell":
                output.append({"type": "local_shell_call", "id": f"lsh_fake{calls}", "call_id": f"call_fake{calls}",
                               "status": "completed", "action": {"type": "exec", "command": args["command"]}})
            else:
                output.append({"type": "function_call", "id": f"fc_fake{calls}", "call_id": f"call_fake{calls}",
                               "name": name, "arguments": json.dumps(args), "status": "completed"})
        usage_obj = {"input_tokens": usage["input"], "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens": usage["output"], "output_tokens_details": {"reasoning_tokens": 0},
                     "total_tokens": usage["input"] + usage["output"]}
        final = {"id": resp_id, "object": "response", "status": "completed", "model": body.get("model"),
                 "output": output, "usage": usage_obj}
        if not body.get("stream"):
            self._json(200, final)
            return
        self._sse_start()
        self._sse({"type": "response.created", "response": {**final, "status": "in_progress",
                                                            "output": [], "usage": None}}, "response.created")
        for i, item in enumerate(output):
            self._sse({"type": "response.output_item.added", "output_index": i, "item": item},
                      "response.output_item.added")
            if item["type"] == "message":
                self._sse({"type": "response.output_text.delta", "output_index": i, "content_index": 0,
                           "item_id": item["id"], "delta": turn["text"]}, "response.output_text.delta")
            self._sse({"type": "response.output_item.done", "output_index": i, "item": item},
                      "response.output_item.done")
        self._sse({"type": "response.completed", "response": final}, "response.completed")

    def _chat(self, body: dict, path: str) -> None:
        tools = [t.get("function") or {} for t in body.get("tools") or [] if isinstance(t, dict)]
        names = [t.get("name") for t in tools if t.get("name")]
        schemas = {t.get("name"): t.get("parameters") or {} for t in tools}
        messages = body.get("messages") or []
        calls = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        if tools or not self.server.textual:
            turn = self._turn(calls, bool(tools), names, schemas)
            text, call, usage = turn["text"], turn["call"], turn["usage"]
        else:
            # Aider has no tools: its edit format is text, so one answer holds the
            # whole script (the text, the whole-file edit, the final answer) and its
            # whole usage. Its prompt carries example conversations, so whether the
            # edit was made is read from our own text in the history.
            edited = any(m.get("role") == "assistant" and TEXT_1 in str(m.get("content")) for m in messages)
            call = None
            if edited:  # a follow-up (e.g. a reflection): nothing more to do
                text, usage = FINAL, {"input": 0, "output": 0}
            else:
                text, usage = f"{TEXT_1}\n\n{FILE}\n```\n{CONTENT}```\n\n{FINAL}\n", expected_tokens()
        self._log(method="POST", api="chat", tools=names, calls=calls, turn=text,
                  stream=bool(body.get("stream")), model=body.get("model"))
        model = body.get("model") or "fake-model"
        usage_obj = {"prompt_tokens": usage["input"], "completion_tokens": usage["output"],
                     "total_tokens": usage["input"] + usage["output"]}
        tool_calls = ([{"index": 0, "id": f"call_fake{calls}", "type": "function",
                        "function": {"name": call[0], "arguments": json.dumps(call[1])}}] if call else None)
        finish = "tool_calls" if call else "stop"
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            if tool_calls:
                message["tool_calls"] = [{k: v for k, v in tc.items() if k != "index"} for tc in tool_calls]
            self._json(200, {"id": f"chatcmpl-fake{calls}", "object": "chat.completion", "created": int(time.time()),
                             "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                             "usage": usage_obj})
            return
        self._sse_start()
        base = {"id": f"chatcmpl-fake{calls}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model}
        self._sse({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text},
                                        "finish_reason": None}]})
        if tool_calls:
            self._sse({**base, "choices": [{"index": 0, "delta": {"tool_calls": tool_calls}, "finish_reason": None}]})
        self._sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        self._sse({**base, "choices": [], "usage": usage_obj})
        self._sse("[DONE]")

    def _gemini(self, body: dict, path: str) -> None:
        decls = [d for t in body.get("tools") or [] if isinstance(t, dict)
                 for d in t.get("functionDeclarations") or [] if isinstance(d, dict)]
        names = [d.get("name") for d in decls]
        schemas = {d.get("name"): d.get("parameters") or d.get("parametersJsonSchema") or {} for d in decls}
        calls = sum(1 for c in body.get("contents") or [] for p in c.get("parts") or []
                    if isinstance(p, dict) and "functionCall" in p)
        turn = self._turn(calls, bool(decls), names, schemas)
        text = turn["text"]
        if turn["aux"]:  # e.g. the next-speaker check wants JSON
            text = json.dumps({"next_speaker": "user", "reasoning": "the task is done"})
        self._log(method="POST", api="gemini", tools=names, calls=calls, turn=text, model=path)
        usage = turn["usage"]
        parts: list[dict] = [{"text": text}]
        if turn["call"]:
            parts.append({"functionCall": {"name": turn["call"][0], "args": turn["call"][1]}})
        final = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": usage["input"], "candidatesTokenCount": usage["output"],
                                   "totalTokenCount": usage["input"] + usage["output"]},
                 "modelVersion": "fake-model"}
        if ":streamGenerateContent" not in path:
            self._json(200, final)
            return
        self._sse_start()
        self._sse(final)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, addr, script: str, log_path: str | None, textual: bool):
        super().__init__(addr, Handler)
        self.script, self.log_path, self.textual = script, log_path, textual
        self._lock = threading.Lock()
        self.dump, self.seq = None, 0

    def record(self, entry: dict) -> None:
        if not self.log_path:
            return
        with self._lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", choices=("write-file", "unauthorized", "server-error", "silent", "stalled"), default="write-file")
    parser.add_argument("--port", type=int, default=8787)
    parser.add_argument("--log", default=None)
    parser.add_argument("--workdir", default="/work", help="where the file is written (absolute)")
    parser.add_argument("--dump", default=None, help="folder to write each request body to")
    parser.add_argument("--textual", action="store_true",
                        help="chat requests without tools get Aider's whole-file edit as text")
    args = parser.parse_args(argv)
    global WORKDIR
    WORKDIR = args.workdir
    server = Server(("127.0.0.1", args.port), args.script, args.log, args.textual)
    server.dump = args.dump
    print(f"fake model on 127.0.0.1:{args.port} script={args.script}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
