"""A password in a server URL opens the model but is neither stored nor part of any key."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.core.redaction import redact
from gtreview.inference.backend import CompletionResult, Sampling
from gtreview.runs.execute import run_pass
from gtreview.runs.identity import spec_identity
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store.project import open_project
from tests.judging.scripted import ScriptedBackend
from tests.projects import new_project
from tests.runs.test_pass import QUESTIONS, judge_reply


def test_the_identity_of_a_server_model_names_no_login() -> None:
    plain = spec_identity("openai:http://127.0.0.1:8000/v1#m")
    assert spec_identity("openai:http://bob:s3cret-pw@127.0.0.1:8000/v1#m") == plain
    assert plain == {"kind": "openai", "base_url": "http://127.0.0.1:8000/v1", "model": "m"}


def config(password: str) -> PassConfig:
    return PassConfig(
        name="t",
        models=[
            ModelEntry(label="base", spec=f"openai:http://bob:{password}@127.0.0.1:9/v1#base"),
            ModelEntry(label="tuned", spec="openai:http://127.0.0.1:9/v1#tuned"),
        ],
        judge=f"openai:http://bob:{password}@127.0.0.1:9/v1#judge",
        repeats=2,
        sampling=Sampling(seed=3, max_tokens=32),
        drift_every=0,
    )


def test_a_changed_password_is_the_same_pass(tmp_path: Path) -> None:
    """The models are opened with the password; the run stores and hashes none, so the
    same pass after a password change finds its run and every answer already made."""
    project = open_project(new_project(tmp_path / "p"))
    opened: list[str] = []

    def open_backend(spec: str) -> ScriptedBackend:
        opened.append(spec)
        shown = redact(spec)  # what the real HTTP backends call themselves
        if spec.endswith("#judge"):
            return ScriptedBackend(judge_reply, spec=shown)
        return ScriptedBackend(lambda request: CompletionResult(text=f"an answer from {shown}"), spec=shown)

    try:
        first = run_pass(
            project.engine, config("old-password-1"), QUESTIONS, rubric_hash="r", open_backend=open_backend
        )
        assert "openai:http://bob:old-password-1@127.0.0.1:9/v1#base" in opened
        again = run_pass(
            project.engine, config("new-password-2"), QUESTIONS, rubric_hash="r", open_backend=open_backend
        )
    finally:
        project.close()
    assert again.run_id == first.run_id
    assert (again.generated, again.reused, again.judged) == (0, first.generated, 0)
    stored = b"".join(path.read_bytes() for path in (tmp_path / "p").glob("project.sqlite*"))
    assert b"old-password-1" not in stored and b"new-password-2" not in stored


@pytest.mark.parametrize("spec", ["openai:http://bob:hunter22@", "openai:https://bob:hunter22@:80/v1#m"])
def test_a_mistyped_spec_does_not_quote_its_password(spec: str) -> None:
    from gtreview.inference.specs import ModelSpecError, parse_model_spec

    with pytest.raises(ModelSpecError) as caught:
        parse_model_spec(spec)
    assert "hunter22" not in str(caught.value) and "bob:***@" in str(caught.value)
