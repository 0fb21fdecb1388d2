"""Messages in the window name its controls, not the command line's options: the core's refusals worded for
the command line are put in the window's words before a status line, a banner or the library's list shows
them."""

from __future__ import annotations

import pytest

from workbench.core.consent import NotTrusted
from workbench.core.evaluate.curves import parse_budgets
from workbench.core.ingest import documents
from workbench.core.llm import embedded, no_model
from workbench.core.llm.ollama_backend import not_running
from workbench.ui.basics.wording import FLAG_PHRASES, for_the_window, options_named


def _budgets_refusal() -> str:
    with pytest.raises(ValueError) as refused:
        parse_budgets("250,x")
    return str(refused.value)


CORE_MESSAGES = [
    documents._too_large(60_000_000, 50),
    no_model.NOT_GENERATIVE,
    no_model.JUDGE_REFUSAL,
    str(not_running("127.0.0.1:11434")),
    str(embedded._error({"type": "exceed_context_size_error", "n_prompt_tokens": 5000}, 2048)),
    str(NotTrusted("mypkg.mod:chunk", "the custom chunker mypkg.mod:chunk")),
    _budgets_refusal(),
]


@pytest.mark.parametrize("message", CORE_MESSAGES, ids=lambda m: m[:30])
def test_the_cores_command_line_phrases_reach_the_window_in_its_words(message):
    assert options_named(message), "the core words it for the command line (else this case proves nothing)"
    shown = for_the_window(message)
    assert not options_named(shown), shown
    assert shown.strip() and shown != message


def test_every_phrase_is_put_without_an_option_and_errors_of_jobs_go_through_it():
    from workbench.ui.jobs.workers import _message

    for phrase, words in FLAG_PHRASES:
        assert not options_named(words), (phrase, words)
    assert not options_named(_message(ValueError(no_model.NOT_GENERATIVE)))
    assert "Settings" in _message(RuntimeError(str(not_running("127.0.0.1:11434"))))
