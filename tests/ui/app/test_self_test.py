"""The bundle's self-test reports each check and stops at the first failure (the checks themselves run in the
built bundle: tests/project/test_bundle.py); the process-age clock behind the cold-start figure is sane."""

import time

import pytest

from workbench.ui.app.qt_app import process_age_s
from workbench.ui.app.self_test import CheckFailed, Checks


def test_checks_print_what_passed_and_stop_on_the_first_failure(capsys):
    checks = Checks()
    checks.run("index", lambda: "6 documents")

    def broken() -> str:
        raise FileNotFoundError("Cannot load dependency data")

    with pytest.raises(CheckFailed):
        checks.run("search", broken)
    with pytest.raises(CheckFailed):
        checks.run("answer", lambda: (_ for _ in ()).throw(CheckFailed("quoted nothing")))
    out = capsys.readouterr()
    assert out.out.startswith("self-test: ok   index: 6 documents (")
    assert out.err.splitlines() == ["self-test: FAIL search: FileNotFoundError: Cannot load dependency data",
                                    "self-test: FAIL answer: quoted nothing"]
    assert checks.passed == ["index"]


def test_process_age_counts_from_the_process_start():
    first = process_age_s()
    if first is None:
        pytest.skip("no /proc on this system")
    time.sleep(0.05)
    second = process_age_s()
    assert second is not None and 0 < first < second
