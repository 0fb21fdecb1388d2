"""Chunk sets embedded on a Ray cluster (``--cluster local[:N] | ray://HOST:PORT``).

The driver (this process) stays the data folder's one writer: it cuts the documents, looks every text up in the
vector cache and writes SQLite and FAISS exactly as a local build does (``build.build_chunk_set``, the same
transactions, resumable after a kill). Only the texts that are not cached yet travel to the cluster, in slices
of ``SLICE_TEXTS``; each worker is an actor holding the embedding model, loaded once, which returns the slice's
vectors. ``ClusterEmbedder`` is that route as an ``Embedder`` under the same ``model_id``, so a set built on the
cluster is the set a local build makes (same chunks and ids, the same model's vectors, the same cache rows).

``local[:N]`` starts a private Ray on this machine with N workers: usage statistics off, no dashboard, its
files and sockets in a temporary folder the workbench makes (mode 0700) and removes, its token generated in
memory (never written to the home folder), every server bound to the loopback address. A supervisor process
(``ray_supervisor``) reaps that Ray and removes the folder when the driver ends, however it ends: SIGKILL leaves
no Ray process behind either. While it runs, SIGTERM stops a command with one line (``Terminated``), where
Ray's own handler would print a stack dump and abort. ``ray://HOST:PORT`` joins a running
cluster (Ray's client) and needs the person's ``--allow-remote``: the documents' text is sent there. Ray is
imported only when a cluster is started, never when ``workbench.core`` is imported.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.core.index import ray_supervisor
from workbench.core.index.embedding import SAVE_EVERY, Embedder, SentenceTransformerEmbedder, default_model_path
from workbench.core.jobs import CancelToken, ProgressSink, Reporter

SLICE_TEXTS = SAVE_EVERY  # texts per task: one cache transaction on the driver per returned slice
IN_FLIGHT = 4  # slices queued per worker (enough to keep it busy while the driver writes; cancel drops the rest)
MAX_WORKERS = 256
RESTARTS = 3  # a lost worker is restarted (and its slice re-run) this many times before the build fails
WAIT_S = 0.25  # how often the driver looks at the cancel token while slices are out
LOCAL = "local"
CLIENT = "ray://"
QUIET_ENV = {  # set before Ray is imported: read by Ray at import and by every process it starts
    "RAY_USAGE_STATS_ENABLED": "0",  # no usage statistics (also no prompt)
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # a single-node Ray: its node address is the loopback address
    "RAY_DEDUP_LOGS": "0",
}


class ClusterAddressError(ValueError):
    """A ``--cluster`` value that names no cluster the workbench can use (a usage error: nothing was done)."""


class ClusterError(RuntimeError):
    """The cluster could not be started or joined, refused the work, or went away mid-build."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while a private local Ray ran: the command stops as on Ctrl-C (its cluster is closed on the
    way out), with one line."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated("terminated (SIGTERM)")


@dataclass(frozen=True)
class ClusterAddress:
    """Where chunk sets are embedded: a local Ray of ``workers`` processes, or a remote cluster at host:port."""

    workers: int = 0
    host: str = ""
    port: int = 0

    @property
    def is_local(self) -> bool:
        """True for ``local[:N]`` (a private Ray on this machine)."""
        return not self.host

    def label(self) -> str:
        """The address as typed (``local:2``, ``ray://host:10001``)."""
        return f"{LOCAL}:{self.workers}" if self.is_local else f"{CLIENT}{self.host}:{self.port}"


def local_cores() -> int:
    """The cores this process may run on (the default ``local`` worker count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


_HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$")


def parse_cluster_address(text: str) -> ClusterAddress:
    """``local``, ``local:N`` (N workers, at least 1) or ``ray://HOST:PORT`` as a ``ClusterAddress``; anything else
    is a ``ClusterAddressError`` saying what is accepted. Nothing is contacted."""
    value = text.strip()
    if value == LOCAL:
        return ClusterAddress(workers=local_cores())
    if value.startswith(f"{LOCAL}:"):
        count = value[len(LOCAL) + 1:]
        if not re.fullmatch(r"[0-9]+", count) or not 1 <= int(count) <= MAX_WORKERS:
            raise ClusterAddressError(f"--cluster {text}: local:N needs a worker count from 1 to {MAX_WORKERS}")
        return ClusterAddress(workers=int(count))
    if value.startswith(CLIENT):
        host, _, port = value[len(CLIENT):].rpartition(":")
        if not host or not _HOST.match(host) or not re.fullmatch(r"[0-9]{1,5}", port) or not 0 < int(port) < 65536:
            raise ClusterAddressError(f"--cluster {text}: a remote cluster is ray://HOST:PORT (Ray's client port, "
                                      "usually 10001)")
        return ClusterAddress(host=host.strip("[]"), port=int(port))
    raise ClusterAddressError(f"--cluster {text}: expected local, local:N or ray://HOST:PORT")


def check_reachable(address: ClusterAddress) -> None:
    """Refuse a remote address whose host name does not resolve (``ClusterAddressError``), before any work."""
    if address.is_local:
        return
    try:
        socket.getaddrinfo(address.host, address.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ClusterAddressError(f"--cluster {address.label()}: unknown host {address.host!r} "
                                  f"({getattr(exc, 'strerror', None) or exc})") from None


def is_loopback(host: str) -> bool:
    """True for a name of this machine's loopback address (``localhost``, ``127.x.x.x``, ``::1``); no lookup."""
    try:
        return host.lower() in ("localhost", "localhost.") or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def remote_refusal(address: ClusterAddress) -> str:
    """Why a ``ray://`` address is refused without ``--allow-remote``, said truly: a loopback address is this
    machine, but the Ray client there is whatever listens on the port (a cluster started by hand, or a tunnel to
    another machine), not a private Ray of the workbench's."""
    if is_loopback(address.host):
        return (f"--cluster {address.label()} is a Ray client port on this machine's loopback address: whatever "
                "listens there (a cluster started by hand, or a tunnel to another machine) would receive the "
                "documents' text; add --allow-remote to send it there, or use --cluster local[:N] for a private "
                "Ray the workbench starts and stops itself")
    return (f"--cluster {address.label()} is not this machine: the documents' text would be sent there; add "
            "--allow-remote to allow it")


def remote_notice(address: ClusterAddress) -> str:
    """What a person is told, before any work, when chunk sets are embedded on a remote cluster."""
    return (f"the text of the documents whose chunks are not embedded yet will be sent to the Ray cluster at "
            f"{address.host}:{address.port} (--allow-remote)")


@dataclass(frozen=True)
class ModelRecipe:
    """How a worker opens the driver's sentence-transformers model: the packaged model (``model_path`` None: the
    worker's own installation of the package) or the folder the driver opened, with its precision. The worker
    refuses a model whose identity differs from the driver's (another version or another folder there)."""

    model_path: str | None
    precision: str
    batch_size: int
    model_id: str

    def __call__(self) -> Embedder:
        embedder = SentenceTransformerEmbedder(self.model_path, batch_size=self.batch_size, precision=self.precision)
        if embedder.model_id != self.model_id:
            raise RuntimeError(f"the cluster's model is {embedder.model_id}, not {self.model_id}: install the same "
                               "package (or model folder) there")
        return embedder


@dataclass(frozen=True)
class CopyRecipe:
    """A worker uses a copy of the driver's embedder, sent as it is (a picklable one without a model folder,
    such as the tests' hashed embedder)."""

    embedder: Any

    def __call__(self) -> Embedder:
        result: Embedder = self.embedder
        return result


def recipe_for(embedder: Embedder) -> Callable[[], Embedder]:
    """How a worker builds the same embedder as ``embedder``."""
    if isinstance(embedder, SentenceTransformerEmbedder):
        packaged = os.path.realpath(embedder.model_path) == os.path.realpath(default_model_path())
        return ModelRecipe(None if packaged else embedder.model_path, embedder.precision, embedder.batch_size,
                           embedder.model_id)
    return CopyRecipe(embedder)


class EmbedWorker:
    """One cluster worker (a Ray actor): the embedding model, loaded once, embedding slices of texts."""

    def __init__(self, recipe: Callable[[], Embedder]) -> None:
        self._embedder = recipe()

    def dim(self) -> int:
        """The model's vector length."""
        return int(self._embedder.dim)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Normalised float32 vectors of ``texts``."""
        return np.asarray(self._embedder.encode(texts), dtype=np.float32)


class Cluster:
    """A Ray cluster for one command or window session: a private local one started on first use, or a remote
    one joined on first use (``allow_remote`` must be given). ``close`` shuts down what was started and removes
    its temporary folder. Workers (one actor per model per worker slot) are kept until then. With
    ``stop_on_sigterm`` (the command line) SIGTERM raises ``Terminated`` in the main thread while a private Ray
    runs, in place of Ray's handler (a stack dump, then abort)."""

    def __init__(self, address: ClusterAddress, allow_remote: bool = False, stop_on_sigterm: bool = False) -> None:
        if not address.is_local and not allow_remote:
            raise ClusterError(remote_refusal(address))
        self.address = address
        self._stop_on_sigterm = stop_on_sigterm
        self._ray: Any = None
        self._temp: str | None = None
        self._supervisor: subprocess.Popen[bytes] | None = None
        self._sigterm: Any = None  # the SIGTERM handler before this cluster's (restored by close)
        self._workers: dict[str, list[Any]] = {}  # model_id → its actors
        self._lock = threading.RLock()  # builds of several threads (a sweep's) share one cluster

    @property
    def started(self) -> bool:
        """True once Ray was started or joined."""
        return self._ray is not None

    def embedder(self, base: Embedder) -> ClusterEmbedder:
        """``base`` embedding on this cluster (same ``model_id``, same vectors)."""
        return ClusterEmbedder(self, base)

    def ray(self) -> Any:
        """The ``ray`` module, with this cluster started or joined (the first call does it)."""
        with self._lock:
            if self._ray is None:
                self._ray = self._start()
            return self._ray

    def _start(self) -> Any:
        if self.address.is_local:
            for key, value in QUIET_ENV.items():
                os.environ.setdefault(key, value)
        else:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - ray is a dependency
            raise ClusterError(f"--cluster needs Ray: pip install ray ({exc})") from None
        import logging

        try:
            if self.address.is_local:
                self._temp = tempfile.mkdtemp(prefix="wb-ray-")  # short: Ray's socket paths must stay < 108 bytes
                self._supervisor = ray_supervisor.start(self._temp)  # reaps this Ray when the driver ends
                if not os.environ.get("RAY_AUTH_TOKEN"):  # Ray's token, generated here (never written to home),
                    os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)  # one per process: Ray's core keeps it
                # Ray makes its own folder readable by all (0777): it lives inside ours, which stays 0700
                ray.init(num_cpus=self.address.workers, include_dashboard=False,
                         _temp_dir=os.path.join(self._temp, "r"),
                         _node_ip_address="127.0.0.1", log_to_driver=False, logging_level=logging.ERROR,
                         configure_logging=True, object_store_memory=256 * 1024 * 1024,
                         runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}})
            else:
                import importlib.util

                if importlib.util.find_spec("grpc") is None:
                    raise ClusterError(f"--cluster {self.address.label()}: joining a remote cluster needs Ray's "
                                       "client: pip install 'ray[client]' (same version as the cluster)")
                ray.init(address=self.address.label(), log_to_driver=False, logging_level=logging.ERROR)
        except ClusterError:
            self._cleanup()
            raise
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError … when it cannot start
            self._cleanup()
            raise ClusterError(f"--cluster {self.address.label()}: Ray could not start or connect "
                               f"({first_line(exc)})") from None
        if self._stop_on_sigterm and self.address.is_local and threading.current_thread() is threading.main_thread():
            self._sigterm = signal.signal(signal.SIGTERM, _terminated)  # in place of Ray's (a dump, then abort)
        return ray

    def workers(self, model_id: str, recipe: Callable[[], Embedder]) -> list[Any]:
        """The actors embedding with ``model_id`` (created on first use: one per worker slot)."""
        ray = self.ray()
        with self._lock:
            return self._workers.get(model_id) or self._create_workers(ray, model_id, recipe)

    def _create_workers(self, ray: Any, model_id: str, recipe: Callable[[], Embedder]) -> list[Any]:
        """One actor per worker slot (``local:N``: N; a remote cluster: one per CPU it has)."""
        count = self.address.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        cls = ray.remote(num_cpus=1, max_restarts=RESTARTS, max_task_retries=RESTARTS)(EmbedWorker)
        actors = [cls.remote(recipe) for _ in range(count)]
        self._workers[model_id] = actors
        return actors

    def close(self) -> None:
        """Shut down what this cluster started (a joined remote cluster keeps running) and remove its files."""
        with self._lock:
            if self._ray is not None:
                with contextlib.suppress(Exception):  # already gone: nothing left to stop
                    self._ray.shutdown()
                self._ray = None
            self._workers.clear()
            self._cleanup()

    def _cleanup(self) -> None:
        if self._supervisor is not None:  # it reaps what Ray left running and removes the folder
            ray_supervisor.stop(self._supervisor)
            self._supervisor = None
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None
        if self._sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._sigterm)
            self._sigterm = None

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def first_line(exc: BaseException, limit: int = 160) -> str:
    """An exception's first non-empty line, cut at ``limit`` characters (Ray's messages run over many)."""
    for line in str(exc).splitlines():
        text = line.strip()
        if text:
            return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
    return type(exc).__name__


class ClusterEmbedder:
    """An ``Embedder`` whose texts are embedded by a cluster's workers (same ``model_id`` as ``base``).

    ``encode_slices`` is the route a build takes (``embedding.embed_cached``): every slice is queued on the
    workers (at most ``IN_FLIGHT`` per worker at once) and the vectors come back in order, so the driver commits
    one slice while the workers embed the next. A cancel drops the queued slices (``ray.cancel``); a worker
    lost mid-build is restarted by Ray and its slice re-run; a cluster that goes away is a ``ClusterError``.
    Anything else (token vectors for late chunking, the tokenizer) is the local ``base``'s.
    """

    elsewhere = True  # its timings are not this machine's rate (``rates.keep_rate`` is skipped)

    def __init__(self, cluster: Cluster, base: Embedder) -> None:
        self.cluster = cluster
        self.base = base
        self.model_id = base.model_id
        self._recipe = recipe_for(base)
        self._dim: int | None = None
        self.texts_encoded = 0
        self.calls = 0

    @property
    def model_path(self) -> str | None:
        """The base embedder's model folder."""
        return self.base.model_path

    @property
    def dim(self) -> int:
        """Vector length: the workers' answer once the cluster runs, else the base embedder's."""
        if self._dim is None:
            if not self.cluster.started:
                return self.base.dim
            ray = self.cluster.ray()
            self._dim = int(self._get(ray, self._actors()[0].dim.remote()))
        return self._dim

    def __getattr__(self, name: str) -> Any:
        if name == "base":  # not set yet (during unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.base, name)

    def _actors(self) -> list[Any]:
        return self.cluster.workers(self.model_id, self._recipe)

    def _get(self, ray: Any, ref: Any) -> Any:
        try:
            return ray.get(ref)
        except ray.exceptions.RayError as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: BaseException) -> ClusterError:
        return ClusterError(f"the Ray cluster ({self.cluster.address.label()}) failed mid-build: {first_line(exc)}; "
                            "the vectors returned before were kept, run the command again to resume")

    def encode(
        self, texts: Sequence[str], progress: ProgressSink | None = None, cancel: CancelToken | None = None
    ) -> np.ndarray:
        """Vectors of ``texts``, embedded on the cluster slice by slice."""
        report = Reporter(progress, "embedding", len(texts))
        slices = [list(texts[i : i + SLICE_TEXTS]) for i in range(0, len(texts), SLICE_TEXTS)]
        parts: list[np.ndarray] = []
        for part in self.encode_slices(slices, cancel):
            parts.append(part)
            report(sum(len(p) for p in parts))
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(parts).astype(np.float32, copy=False)

    def encode_slices(self, slices: Sequence[Sequence[str]], cancel: CancelToken | None = None) -> Iterator[np.ndarray]:
        """The vectors of each slice, in order, as the workers return them (slices handed out in turn)."""
        if not slices:
            return
        ray = self.cluster.ray()
        actors = self._actors()
        limit = IN_FLIGHT * len(actors)
        refs: dict[int, Any] = {}
        sent = 0
        try:
            for n in range(len(slices)):
                while sent < len(slices) and sent - n < limit:
                    if cancel is not None:
                        cancel.check()
                    refs[sent] = actors[sent % len(actors)].encode.remote(list(slices[sent]))
                    sent += 1
                vectors = np.asarray(self._wait(ray, refs.pop(n), cancel), dtype=np.float32)
                if self._dim is None and vectors.ndim == 2:
                    self._dim = int(vectors.shape[1])
                self.texts_encoded += len(vectors)
                self.calls += 1
                yield vectors
        finally:
            for ref in refs.values():  # a cancel, an error or a caller that stopped early: queued slices dropped
                with contextlib.suppress(Exception):  # finished or gone already
                    ray.cancel(ref)

    def _wait(self, ray: Any, ref: Any, cancel: CancelToken | None) -> Any:
        """The result of ``ref``, looking at ``cancel`` every ``WAIT_S`` seconds meanwhile."""
        while True:
            if cancel is not None:
                cancel.check()
            try:
                ready, _ = ray.wait([ref], timeout=WAIT_S)
            except ray.exceptions.RayError as exc:
                raise self._failed(exc) from None
            if ready:
                return self._get(ray, ref)
