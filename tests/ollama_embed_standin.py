"""A loopback stand-in for an Ollama server that only embeds: ``/api/version``, ``/api/tags`` and
``/api/embed``, with Ollama's error body for a model that is not pulled (404 ``{"error": ...}``).

No Ollama server can exist in CI, so the embedding-model tests talk to this one over real HTTP through the
official ``ollama`` client (``http.server`` in a thread on 127.0.0.1, random port). Vectors are
deterministic: the feature-hashed bag of words of ``fake_embedder.HashEmbedder``, times 3 (not unit length:
the client side normalises). ``OllamaHandler`` and ``serve`` are shared with the chat stand-in of
``test_llm_ollama.py`` (which answers with the GGUF model).
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_embedder import HashEmbedder

EMBED_MODEL = "hash-embed"


def serve(standin: object, handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    """A threaded HTTP server on a random loopback port, serving ``handler`` with ``standin`` as its state."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    httpd.standin = standin  # type: ignore[attr-defined]
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released): a server that is not running."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tag(name: str, size: int, details: dict) -> dict:
    """One model of ``/api/tags``."""
    return {"name": name, "model": name, "size": size, "digest": "0" * 64, "modified_at": "2025-01-01T00:00:00Z",
            "details": details}


class OllamaHandler(BaseHTTPRequestHandler):
    """Ollama's JSON replies, ``/api/version``, ``/api/tags`` (from ``standin.tags()``) and ``/api/embed``
    (from ``standin.embedder``); every request is recorded in ``standin.requests``."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    @property
    def s(self):  # the stand-in object of the server
        return self.server.standin

    def _json(self, status: int, obj: dict) -> None:
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.s.requests.append((self.path, {}))
        if self.path == "/api/version":
            return self._json(200, {"version": "0.12.6"})
        if self.path == "/api/tags":
            return self._json(200, {"models": self.s.tags()})
        return self._json(404, {"error": "not found"})

    def _read(self) -> dict:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self.s.requests.append((self.path, body))
        return body

    def _embed(self, body: dict) -> None:
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vecs = self.s.embedder.encode(inputs) * 3.0  # not unit length: the client side normalises
        return self._json(200, {"model": body["model"], "embeddings": vecs.tolist()})


class EmbedStandIn:
    """The server: ``models`` are the pulled model names; ``requests`` records ``(path, body)``."""

    def __init__(self, models: tuple[str, ...] = (EMBED_MODEL,), dim: int = 256) -> None:
        self.models = models
        self.embedder = HashEmbedder(dim)
        self.requests: list[tuple[str, dict]] = []
        self.httpd = serve(self, _Handler)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.httpd.server_address[1]}"

    def tags(self) -> list[dict]:
        """The pulled models as ``/api/tags`` lists them."""
        return [tag(m, 274_302_450, _details(m)) for m in self.models]

    def embedded_texts(self) -> list[str]:
        """Every text sent to ``/api/embed``, in order."""
        return [t for path, body in self.requests if path == "/api/embed" for t in body["input"]]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(OllamaHandler):
    def do_POST(self) -> None:
        body = self._read()
        if self.path != "/api/embed":
            return self._json(404, {"error": "not found"})
        if body.get("model") not in self.s.models:
            return self._json(404, {"error": f"model \"{body.get('model')}\" not found, try pulling it first"})
        return self._embed(body)


def _details(name: str) -> dict:
    """``/api/tags`` details: an embedding model's family is a BERT one, a chat model's is not."""
    family = "nomic-bert" if "embed" in name else "llama"
    return {"format": "gguf", "family": family, "parameter_size": "137M", "quantization_level": "F16"}
