"""The one redaction step: credentials of known shape and the secrets in play, never prose."""

from __future__ import annotations

import base64

import pytest

from gtreview.core import redaction
from gtreview.core.redaction import (
    MASK,
    redact,
    redact_json,
    register_secret,
    register_url_credentials,
    url_without_userinfo,
)


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Secrets registered here stay out of the rest of the test session."""
    monkeypatch.setattr(redaction, "_registry", redaction.SecretRegistry())


def test_keys_of_a_known_shape_are_masked() -> None:
    text = "Incorrect API key provided: sk-proj-AbCdEf0123456789xyz and sk-ant-api03-Zz9_yy-8xx"
    assert redact(text) == f"Incorrect API key provided: sk-{MASK} and sk-{MASK}"


def test_bearer_tokens_are_masked_but_the_word_bearer_is_not() -> None:
    assert redact("Authorization: Bearer eyJhbGciOi.J9x-1") == f"Authorization: Bearer {MASK}"
    assert redact("authorization: bearer abcd1234efgh") == f"authorization: bearer {MASK}"
    prose = "The bearer instrument is a Bearer certificate; basic rocks are Basic volcanics."
    assert redact(prose) == prose


def test_basic_auth_is_masked_only_when_it_decodes_to_user_and_password() -> None:
    token = base64.b64encode(b"bob:s3cret-pass").decode()
    assert redact(f"had Authorization: Basic {token}") == f"had Authorization: Basic {MASK}"
    assert redact("Basic principles apply") == "Basic principles apply"


def test_url_passwords_are_masked_and_the_user_kept() -> None:
    assert redact("GET https://bob:p%40ss@host:8080/v1 failed") == f"GET https://bob:{MASK}@host:8080/v1 failed"
    assert redact("openai:http://bob:p@ss@10.0.0.1/v1#m") == f"openai:http://bob:{MASK}@10.0.0.1/v1#m"
    assert (
        redact("see http://host:8080/v1 and mail me@example.org") == "see http://host:8080/v1 and mail me@example.org"
    )


def test_key_value_credentials_are_masked() -> None:
    assert redact("GET /v1?api-key=abc123XYZ&x=1") == f"GET /v1?api-key={MASK}&x=1"
    assert redact('{"password": "hunter22"}') == f'{{"password": "{MASK}"}}'
    # a spec's query token (the attack stored ?token= in the project in clear); counts stay
    assert redact("openai:http://h/v1?token=TOKSECRET#m") == f"openai:http://h/v1?token={MASK}#m"
    assert redact("max_tokens=2048 tokens=512") == "max_tokens=2048 tokens=512"


def test_a_registered_secret_is_masked_wherever_it_appears() -> None:
    register_secret("opaque-token-7f3a91")
    assert redact("the proxy echoed opaque-token-7f3a91!") == f"the proxy echoed {MASK}!"


def test_a_short_registered_secret_is_masked_only_as_a_whole_word() -> None:
    register_secret("zq7x")
    assert redact("zq7x rejected") == f"{MASK} rejected"
    assert redact("azq7xb") == "azq7xb"
    register_secret("ab")  # too short to find safely: only its credential shapes are masked
    assert redact("a cab") == "a cab"


def test_url_credentials_are_registered_decoded_raw_and_as_basic_auth() -> None:
    register_url_credentials("https://carol:pa%3Ass-w0rd-long@example.org/v1")
    basic = base64.b64encode(b"carol:pa:ss-w0rd-long").decode()
    assert redact(f"x pa:ss-w0rd-long y pa%3Ass-w0rd-long z {basic}") == f"x {MASK} y {MASK} z {MASK}"


def test_keys_in_the_environment_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "an-env-key-without-a-shape")
    assert redact("echo an-env-key-without-a-shape") == f"echo {MASK}"


def test_json_is_redacted_in_keys_and_values_and_keeps_its_shape() -> None:
    value = {"openai:http://u:pw-secret@h/v1#m": {"server": {"error": "Bearer abc123def456"}, "n": 3, "ok": None}}
    assert redact_json(value) == {
        f"openai:http://u:{MASK}@h/v1#m": {"server": {"error": f"Bearer {MASK}"}, "n": 3, "ok": None}
    }


def test_redaction_is_idempotent() -> None:
    text = "https://u:pw@h Bearer abc123def456 sk-abcdefghijklmnop1234"
    assert redact(redact(text)) == redact(text)


def test_url_without_userinfo() -> None:
    assert url_without_userinfo("https://u:pw@h:1/v1") == "https://h:1/v1"
    assert url_without_userinfo("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080/v1/"
