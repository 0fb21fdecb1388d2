"""Settings → "Ray workers on this machine": stored, read back, and given to the workspace at the next start
(builds then embed on a private local Ray, started only when a build needs it)."""

from __future__ import annotations

from workbench.core.index.cluster import ClusterAddress
from workbench.ui.basics import settings as prefs

pytest_plugins = ["ui_support"]


def test_settings_store_the_local_ray_workers(qtbot, ui_settings, tmp_path):
    from workbench.ui.dialogs.settings_dialog import SettingsDialog

    dialog = SettingsDialog(ui_settings, tmp_path / "data")
    qtbot.addWidget(dialog)
    assert dialog.cluster_workers.value() == 0, "off by default"
    dialog.cluster_workers.setValue(2)
    with qtbot.waitSignal(dialog.saved) as saved:
        dialog.ok_button.click()
    assert saved.args[1] is True, "takes effect at the next start"
    assert prefs.cluster_workers(ui_settings) == 2
    again = SettingsDialog(ui_settings, tmp_path / "data")
    qtbot.addWidget(again)
    assert again.cluster_workers.value() == 2
    for stored in ("x", "-1", "0", "100000"):
        ui_settings.setValue(prefs.CLUSTER_WORKERS, stored)
        assert prefs.cluster_workers(ui_settings) == 0


def test_the_window_builds_on_the_stored_local_ray(qtbot, start_app, ui_settings, tmp_path):
    ui_settings.setValue(prefs.WELCOME_SEEN, True)
    ui_settings.setValue(prefs.CLUSTER_WORKERS, "2")
    window = start_app(["--no-sample", "--data-dir", str(tmp_path / "data")])
    cluster = window.ws.sets.cluster
    assert cluster is not None and cluster.address == ClusterAddress(workers=2)
    assert not cluster.started, "Ray starts with the first build that needs it"
