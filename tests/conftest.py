"""Shared fixtures: one loaded MiniLM model for the whole session, real SQLite files and FAISS indexes."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.pop("WORKBENCH_DATA", None)
os.environ.pop("OLLAMA_HOST", None)

import pytest
from hypothesis import settings

# The per-user data folder (platformdirs reads XDG_DATA_HOME) is one of this session's own, in this process and its
# children: a command run without --data-dir never reads or writes the machine's real one, which another program
# (or another checkout's tests, at another schema version) may change at any moment.
_USER_DATA = tempfile.mkdtemp(prefix="workbench-tests-user-data-")
os.environ["XDG_DATA_HOME"] = _USER_DATA
atexit.register(shutil.rmtree, _USER_DATA, ignore_errors=True)

# Property tests draw the same examples on every run (a red CI is a regression, never a newly drawn example);
# WORKBENCH_HYPOTHESIS=explore draws fresh random examples to hunt for new failures.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("WORKBENCH_HYPOTHESIS", "repeatable"))

pytest.register_assert_rewrite("ui_support", "eval_support", "fake_embedder", "llm_standin")

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SAMPLE = ROOT / "resources" / "sample"
CHROMA = ROOT / "workbench" / "datasets" / "chroma-general"  # bundled with the package
sys.path.insert(0, str(Path(__file__).parent))


def pytest_collection_modifyitems(config, items):
    """Two tiers (``scripts/test --fast`` runs ``-m "not slow"``): a test that loads a real model is ``slow``
    wherever it is: MiniLM (the ``embedder`` fixture, also behind ``sample_ws``, ``fresh_ws`` and
    ``sample_data_dir``) or the GGUF model (marked ``llm``). Other tests over ~1 s are marked by hand."""
    for item in items:
        if "embedder" in getattr(item, "fixturenames", ()) or item.get_closest_marker("llm"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _real_models_only_in_slow_tests(request, monkeypatch):
    """The fast tier stays fast: a test not marked ``slow`` that loads MiniLM or the GGUF model (even one
    already loaded in this process) fails, saying what to use instead."""
    if request.node.get_closest_marker("slow"):
        yield
        return
    import workbench.core.index.embedding as embedding
    import workbench.core.llm.embedded as embedded

    loaded: list[str] = []

    def refuse(what):
        def load(*args, **kwargs):
            loaded.append(what)
            raise RuntimeError(f"a test outside the slow tier loads {what}")
        return load

    monkeypatch.setattr(embedding, "load_model", refuse("the MiniLM model"))
    monkeypatch.setattr(embedded, "_engine", refuse("the embedded GGUF model"))
    yield
    assert not loaded, (f"this test loads {loaded[0]}: use the hash_* fixtures (hash_ws, hash_sample_ws, hash_cli) "
                        "or standin_llm, or mark it @pytest.mark.slow (or llm) if the real model is its point")


@pytest.fixture(autouse=True)
def _no_consent_leaks():
    """Consent to run code named by data (``workbench.core.consent``) never outlives the test that gave it."""
    yield
    from workbench.core.consent import forget_all

    forget_all()


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2 model, loaded once per test session."""
    from workbench.core.index.embedding import SentenceTransformerEmbedder

    emb = SentenceTransformerEmbedder()
    emb.encode(["warm up"])
    return emb


@pytest.fixture(scope="session")
def hash_embedder():
    """A fast fake embedder (hashed bag of words, no model): for pipeline tests that need vectors, not meaning."""
    from fake_embedder import HashEmbedder

    return HashEmbedder()


@pytest.fixture
def hash_ws(tmp_path, hash_embedder):
    """An empty workspace embedding with ``hash_embedder`` (no model is loaded)."""
    from workbench.core.workspace import Workspace

    ws = Workspace(tmp_path / "hashed", embedder=hash_embedder)
    yield ws
    ws.close()


@pytest.fixture
def hash_sample_ws(tmp_path, hash_embedder, hash_sample_data_dir):
    """A workspace embedding with ``hash_embedder`` over a copy of ``hash_sample_data_dir`` (the sample corpus
    indexed once per session, copied in milliseconds): for UI plumbing tests whose assertions do not depend on
    which chunks the real model ranks first. A test that watches the indexing itself indexes into ``hash_ws``."""
    import shutil

    from workbench.core.workspace import Workspace

    shutil.copytree(hash_sample_data_dir, tmp_path / "hashed")
    ws = Workspace(tmp_path / "hashed", embedder=hash_embedder)
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def hash_sample_data_dir(tmp_path_factory, hash_embedder) -> Path:
    """A data folder with the sample corpus indexed (default chunking) by ``hash_embedder``, built once;
    copy it before changing it."""
    from workbench.core.workspace import Workspace

    data = tmp_path_factory.mktemp("hash-sample-data")
    ws = Workspace(data, embedder=hash_embedder)
    report = ws.add_paths([str(SAMPLE)])
    assert not report.failed, report.failed
    ws.close()
    return data


@pytest.fixture
def hash_cli(monkeypatch, hash_embedder):
    """The ``workbench`` command in this process embedding with ``hash_embedder`` wherever it would open the
    default model (other model specs open as usual): CLI plumbing tests without loading MiniLM."""
    import workbench.core.index.embedder_pool as pool

    real = pool.open_embedder

    def open_embedder(spec, host=None, allow_remote=False):
        return hash_embedder if not pool.normalise_model_spec(spec) else real(spec, host, allow_remote)

    monkeypatch.setattr(pool, "open_embedder", open_embedder)
    return hash_embedder


@pytest.fixture
def standin_llm(monkeypatch):
    """Every ``open_backend("embedded")`` (``--llm embedded``, the window's embedded choice) opens this
    ``llm_standin.StandInLLM`` instead of the packaged GGUF model: for tests that need a generative LLM, not
    the real one. A GGUF file named explicitly is opened (or refused when missing) as usual."""
    from llm_standin import StandInLLM

    import workbench.core.llm.open as opener

    llm = StandInLLM()
    real = opener._embedded

    def embedded(model):
        return real(model) if model is not None and not Path(model).is_file() else llm

    monkeypatch.setattr(opener, "_embedded", embedded)
    return llm


@pytest.fixture(scope="session")
def sample_data_dir(tmp_path_factory, embedder) -> Path:
    """A data folder with the sample corpus indexed (default chunking), built once."""
    from workbench.core.workspace import Workspace

    data = tmp_path_factory.mktemp("sample-data")
    ws = Workspace(data, embedder=embedder)
    report = ws.add_paths([str(SAMPLE)])
    assert not report.failed, report.failed
    ws.close()
    return data


@pytest.fixture
def sample_ws(sample_data_dir, tmp_path, embedder):
    """A private copy of the indexed sample data folder (tests may change it)."""
    from workbench.core.workspace import Workspace

    copy = tmp_path / "data"
    shutil.copytree(sample_data_dir, copy)
    ws = Workspace(copy, embedder=embedder)
    yield ws
    ws.close()


@pytest.fixture
def fresh_ws(tmp_path, embedder):
    """An empty workspace in a temporary folder."""
    from workbench.core.workspace import Workspace

    ws = Workspace(tmp_path / "fresh", embedder=embedder)
    yield ws
    ws.close()


@pytest.fixture
def counter():
    """The default model's token counter (its tokenizer file only: the model is not loaded)."""
    from workbench.core.index.embedding import default_model_path
    from workbench.core.ingest.tokens import counter_for_model

    return counter_for_model(default_model_path())
