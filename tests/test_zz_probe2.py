import time
from dataclasses import replace
import pytest
from conftest import SAMPLE
from ui_support import WAIT_MS, on_screen, search
from test_ui_jobs import SlowEmbedder
pytest_plugins = ["ui_support"]

@pytest.fixture
def slow_ws(tmp_path):
    from workbench.core.workspace import Workspace
    ws = Workspace(tmp_path / "slow", embedder=SlowEmbedder())
    yield ws
    ws.close()

def test_grab(qtbot, monkeypatch, make_window, slow_ws, tmp_path):
    from eval_support import sample_questions
    from workbench.core.evaluate.datasets import save_question_set
    assert not slow_ws.add_paths([str(SAMPLE)]).failed
    screen = on_screen(monkeypatch, 1280, 720)
    window = make_window(slow_ws)
    window.setGeometry(screen)
    window.model.set_side_by_side(True)
    search(qtbot, window, sides=("a", "b"))
    b = window.compare.b
    grabbed = []
    def grab(e):
        if not grabbed and e.overall and e.overall > 0.3:
            grabbed.append(1); window.grab().save("/tmp/shots3/probe-rechunk.png")
    b.controller.buildProgress.connect(grab)
    with qtbot.waitSignal(b.controller.buildFinished, timeout=WAIT_MS):
        window.model.set_strategy("B", replace(window.model.strategy("B").with_size(72), name="custom"))
    questions, corpora = sample_questions()
    save_question_set(tmp_path / "qs", questions, corpora)
    view = window.eval_view
    window.set_mode("evaluate")
    assert view.load_question_set(tmp_path / "qs")
    view.set_checked(["plain", "neighbours"])
    view.grid.setText("chunk_size=90,110")
    g2 = []
    def grab2(v):
        if not g2 and view.progress.maximum() == 1000 and v > 300:
            g2.append(1); window.grab().save("/tmp/shots3/probe-lab.png")
    view.progress.valueChanged.connect(grab2)
    with qtbot.waitSignal(view.runFinished, timeout=120000):
        view.run_button.click()
