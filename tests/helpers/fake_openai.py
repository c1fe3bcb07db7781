"""A fake OpenAI-compatible chat server on 127.0.0.1 for fault tests: it answers each request
with the next scripted fault (then ``ok``), bounded in requests and in time. Its error bodies
quote the request's Authorization header, as some providers' do (a test of redaction). ``reply``
answers as a seed agent's writer and actor would; ``KEY`` is the API key the fault tests plant
(test_hosted_faults.py, the fault harness in benchmarks/faults/)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULTS = ("ok", "429", "500", "timeout", "drop", "truncated", "401", "404", "400", "422")
ERRORS = ("400", "401", "404", "422", "429", "500")  # answered with that HTTP status
KEY = "sk-planted-secret-0123456789"  # an API key that must never reach a run directory or output


def reply(body: dict) -> str:
    """A writer that adds one note, an actor that answers 42 (DSPy's chat format)."""
    if "[[ ## outcome ## ]]" in body["messages"][-1]["content"]:
        ops = [{"action": "ADD", "note_id": "", "text": "billing-api listens on port 42"}]
        return f"[[ ## operations ## ]]\n{json.dumps(ops)}\n\n[[ ## completed ## ]]"
    return "[[ ## answer ## ]]\n42\n\n[[ ## completed ## ]]"


def completion(content: str) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class FakeOpenAI:
    """``with FakeOpenAI(faults, reply) as server``: ``server.url`` is the api_base; request i
    gets ``faults[i]`` (``ok`` past the end), ``ok`` answers ``reply(request_json)``;
    ``server.requests`` counts requests, ``server.headers`` keeps each one's headers."""

    def __init__(self, faults, reply, *, max_requests: int = 500, hang: float = 5.0, lifetime: float = 300.0):
        self.faults, self.reply, self.max_requests, self.hang = list(faults), reply, max_requests, hang
        self.requests, self.headers, self._lock = 0, [], threading.Lock()
        self.deadline = time.monotonic() + lifetime
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server._lock:
                    index = server.requests
                    server.requests += 1
                    server.headers.append(dict(self.headers))
                over = index >= server.max_requests or time.monotonic() > server.deadline
                fault = "500" if over else (server.faults[index] if index < len(server.faults) else "ok")
                server.respond(self, fault, body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def respond(self, handler, fault: str, body: dict) -> None:
        if fault == "drop":
            handler.close_connection = True
            handler.connection.close()
            return
        if fault == "timeout":
            time.sleep(self.hang)
        if fault in ERRORS:
            echoed = handler.headers.get("Authorization", "")
            data = json.dumps({"error": {"message": f"fake {fault} for {echoed}", "type": "fake"}}).encode()
            handler.send_response(int(fault))
            handler.send_header("Retry-After", "0")
        else:
            data = json.dumps(completion(self.reply(body))).encode()
            data = data[: len(data) // 2] if fault == "truncated" else data
            handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        try:
            handler.wfile.write(data)
        except OSError:
            pass

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
