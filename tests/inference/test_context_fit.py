"""Every prompt's fit is checked before the first call: counted by the local model's
own tokenizer in its worker process, refused in one line that names what does not fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.context_fit import ModelCheckFailed, PromptCheck, PromptsDoNotFit, check_prompts_fit
from gtreview.inference.factory import open_backend
from gtreview.inference.worker import WorkerBackend, WorkerDied


def request(words: int, max_tokens: int) -> CompletionRequest:
    text = " ".join(["gold"] * words)
    return CompletionRequest(
        messages=[ChatMessage(role="user", content=text)], sampling=Sampling(max_tokens=max_tokens)
    )


def test_the_worker_counts_prompt_tokens_with_the_models_template(tiny_gguf: Path) -> None:
    opened = open_backend(f"llama:{tiny_gguf}?ctx=512&seq=2&threads=1")
    assert isinstance(opened, WorkerBackend)  # the factory's local backend counts in its worker
    with opened as backend:
        counts = backend.count_prompt_tokens([request(1, 8), request(100, 8)])
        assert counts is not None and counts.context == 512
        short, long = counts.tokens
        assert long - short == 99  # one token per "▁gold", the template around them is the same
        result = backend.complete_batch([request(1, 4)])[0]
        assert result.prompt_tokens == short  # what is counted is what is decoded


def test_prompts_that_cannot_fit_are_refused_in_one_line_before_any_call(tiny_gguf: Path) -> None:
    with WorkerBackend(f"llama:{tiny_gguf}?ctx=512&seq=2&threads=1") as backend:
        checks = [
            PromptCheck("question A1", request(10, 64)),
            PromptCheck("question B2", request(600, 64)),  # the prompt alone is too long
            PromptCheck("question C3", request(10, 64), reserve=480),  # no room for the longest answer
        ]
        with pytest.raises(PromptsDoNotFit) as caught:
            check_prompts_fit(backend, checks, what="judge")
        message = str(caught.value)
        assert "\n" not in message
        assert message.startswith("2 of 3 judge prompts do not fit the 512-token context of llama:")
        assert "question B2 needs 6" in message and "+ 64 reply" in message
        assert "question C3 needs" in message and "+ 480 answer" in message
        assert "question A1" not in message
        check_prompts_fit(backend, checks[:1], what="judge")  # what fits passes


def test_a_backend_that_cannot_count_is_not_checked() -> None:
    class Server:
        spec = "openai:http://127.0.0.1:1/v1#m"

    check_prompts_fit(Server(), [PromptCheck("q", request(10_000, 10))], what="judge")  # type: ignore[arg-type]


def test_a_model_that_aborts_while_counting_is_one_line(aborting_gguf: Path) -> None:
    with WorkerBackend(f"llama:{aborting_gguf}?ctx=512&seq=2&threads=1") as backend:
        with pytest.raises(
            WorkerDied, match=r"signal SIGABRT\) running aborting.gguf: terminate called after throwing"
        ):
            backend.count_prompt_tokens([request(1, 4)])
        with pytest.raises(ModelCheckFailed) as caught:
            check_prompts_fit(backend, [PromptCheck("question A1", request(1, 4))], what="judge")
        assert "\n" not in str(caught.value) and "model worker died (signal SIGABRT)" in str(caught.value)
