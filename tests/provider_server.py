"""A scripted provider on 127.0.0.1 for the bridges' tests and documentation examples: it
answers POST /v1/chat/completions, /v1/responses and /v1/messages with the next reply
scripted for that path, in a thread of its own, so sync and async SDK clients both reach
it. A reply is a JSON body, or a function of the request's body returning one."""

import json
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"
MESSAGES = "/v1/messages"


class ProviderServer:
    def __init__(self) -> None:
        self.scripts: dict[str, deque[Reply]] = defaultdict(deque)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def script(self, path: str, *replies: Reply) -> None:
        self.scripts[path].extend(replies)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?")[0]
                server.requests.append((path, body))
                replies = server.scripts.get(path)
                if not replies:
                    self._send(500, {"error": {"message": f"nothing scripted for {path}"}})
                    return
                reply = replies.popleft()
                self._send(200, reply(body) if callable(reply) else reply)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the test reads `requests`

        return Handler

    def __enter__(self) -> "ProviderServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@contextmanager
def provider_server() -> Iterator[ProviderServer]:
    with ProviderServer() as server:
        yield server


def chat_completion(content: str, finish_reason: str = "stop", **message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "logprobs": None,
                "message": {"role": "assistant", "content": content, **message},
            }
        ],
        "usage": {"prompt_tokens": 14, "completion_tokens": 9, "total_tokens": 23},
    }


def response(text: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": "resp_test",
        "object": "response",
        "created_at": 1700000000,
        "model": "gpt-4.1-mini",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_test",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 14,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 9,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 23,
        },
        **fields,
    }


def message(text: str, stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 14, "output_tokens": 9},
    }


def judge_message(answer: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A judge's structured answer on /v1/messages: the forced tool's call when the request
    offers tools, else the JSON as text."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools"):
            return message(json.dumps(answer))
        name = body["tools"][0]["name"]
        return {
            **message(""),
            "content": [{"type": "tool_use", "id": "toolu_j", "name": name, "input": answer}],
            "stop_reason": "tool_use",
        }

    return reply
