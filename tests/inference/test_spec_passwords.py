"""A spec's URL password is kept in the keyring and put back when the spec is opened.

What a project keeps is the spec masked (``lab:***@``); ``open_backend`` of that spec
sends the password again (the server sees the same basic auth as for the spec typed in
full). Without a keyring the password is refused in one line that names the way out.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from gtreview.core.errors import one_line
from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
from gtreview.inference.factory import open_backend
from gtreview.inference.spec_passwords import PasswordNotFound, PasswordNotKept, keep_spec, with_kept_password
from tests.keyrings import MemoryKeyring, keyring_in_use, no_keyring

SPEC = "openai:http://lab:s3cret%40pw@127.0.0.1:9/v1#judge"
MASKED = "openai:http://lab:***@127.0.0.1:9/v1#judge"


def reply(_request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": "yes"}}]})


def ask() -> CompletionRequest:
    return CompletionRequest(messages=[ChatMessage(role="user", content="Is basalt extrusive?")], sampling=Sampling())


def test_a_kept_spec_is_masked_and_its_password_is_in_the_keyring_under_its_server() -> None:
    with keyring_in_use(MemoryKeyring()) as ring:
        assert keep_spec(SPEC) == MASKED
        assert ring.passwords == {("gtreview", "url:openai:http://lab:***@127.0.0.1:9/v1"): "s3cret%40pw"}
        assert with_kept_password(MASKED) == SPEC
        # another model on the same server shares the password
        assert with_kept_password(MASKED.replace("#judge", "#base")) == SPEC.replace("#judge", "#base")
        assert keep_spec(MASKED) == MASKED and keep_spec("llama:/m/a.gguf") == "llama:/m/a.gguf"


def test_opening_a_masked_spec_sends_the_password_from_the_keyring() -> None:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return reply(request)

    with keyring_in_use(MemoryKeyring()):
        keep_spec(SPEC)
        backend = open_backend(MASKED, transport=httpx.MockTransport(record))
        try:
            [result] = backend.complete_batch([ask()])
            described: dict[str, Any] = backend.describe()
        finally:
            backend.close()
    assert result.ok and result.text == "yes"
    expected = base64.b64encode(b"lab:s3cret@pw").decode()
    assert seen[0].headers["authorization"] == f"Basic {expected}"
    assert "s3cret" not in str(described)


def test_a_masked_spec_whose_password_is_not_kept_is_refused_in_one_line() -> None:
    with keyring_in_use(MemoryKeyring()), pytest.raises(PasswordNotFound) as refused:
        open_backend(MASKED, transport=httpx.MockTransport(reply))
    assert one_line(refused.value) == (
        f"the password of {MASKED} is not in this system's keyring: type the spec again with its password "
        "(it is kept in the keyring, never in the project)"
    )


def test_without_a_keyring_a_password_is_refused_with_the_environment_named() -> None:
    with keyring_in_use(no_keyring()), pytest.raises(PasswordNotKept) as refused:
        keep_spec(SPEC)
    line = one_line(refused.value)
    assert "no keyring" in line and "GTREVIEW_OPENAI_API_KEY" in line and "s3cret" not in line
    assert "\n" not in line
