"""The project's judge and approval rule, as the app and the CLI read them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtreview.app.project_settings import project_judge, set_approval_requires_calibration, set_project_judge
from gtreview.app.question_calibration import approval_requires_calibration
from gtreview.core.errors import UserError
from gtreview.store.project import create_project


def test_the_judge_is_kept_and_a_bad_spec_refused(tmp_path: Path) -> None:
    project = create_project(tmp_path / "p")
    try:
        assert project_judge(project.engine) == ""
        set_project_judge(project.engine, "  openai:http://127.0.0.1:8000/v1#judge ")
        assert project_judge(project.engine) == "openai:http://127.0.0.1:8000/v1#judge"
        with pytest.raises(UserError):
            set_project_judge(project.engine, "nonsense:thing")
        assert project_judge(project.engine) == "openai:http://127.0.0.1:8000/v1#judge"  # nothing lost
        set_approval_requires_calibration(project.engine, False, actor="geo")
        assert approval_requires_calibration(project.engine) is False
    finally:
        project.close()


def test_without_a_keyring_a_spec_with_a_password_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    from gtreview.app.project_settings import last_pass, set_last_pass
    from gtreview.inference.spec_passwords import PasswordNotKept
    from gtreview.runs.plan import ModelEntry, PassConfig
    from tests.keyrings import keyring_in_use, no_keyring

    with_password = "openai:http://lab:hunter22@127.0.0.1:8000/v1#judge"
    config = PassConfig(name="p", models=[ModelEntry(label="base", spec=with_password)], judge="anthropic:claude")
    project = create_project(tmp_path / "p")
    try:
        set_project_judge(project.engine, "anthropic:claude")
        with keyring_in_use(no_keyring()):
            with pytest.raises(PasswordNotKept, match="GTREVIEW_OPENAI_API_KEY"):
                set_project_judge(project.engine, with_password)
            with pytest.raises(PasswordNotKept):
                set_last_pass(project.engine, config)
        assert project_judge(project.engine) == "anthropic:claude" and last_pass(project.engine) is None
    finally:
        project.close()
    assert b"hunter22" not in b"".join(p.read_bytes() for p in (tmp_path / "p").iterdir() if p.is_file())


def test_each_settings_intent_says_which_settings_it_changed(tmp_path: Path) -> None:
    from gtreview.app.corpus_review import CONFIRMED_SYNONYMS, confirmed_synonyms, set_synonym_confirmed
    from gtreview.app.drafting import AUTHORITY_CONTRACT, project_contract, set_contract_order
    from gtreview.app.project_settings import (
        GATE_SETTING_KEYS,
        LAST_PASS,
        judge_gate_settings,
        set_judge_gate_settings,
        set_last_pass,
    )
    from gtreview.core.changes import OpChanges, changes_of
    from gtreview.runs.plan import ModelEntry, PassConfig
    from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, JUDGE_SPEC

    def keys(*names: str) -> OpChanges:
        return OpChanges(settings=frozenset(names))

    project = create_project(tmp_path / "p")
    engine = project.engine
    try:
        assert set_project_judge(engine, "anthropic:claude") == keys(JUDGE_SPEC)
        assert set_approval_requires_calibration(engine, False, actor="geo") == keys(APPROVAL_REQUIRES_CALIBRATION)
        config = PassConfig(
            name="p", models=[ModelEntry(label="base", spec="anthropic:claude")], judge="anthropic:claude"
        )
        assert set_last_pass(engine, config) == keys(LAST_PASS)
        assert set_judge_gate_settings(engine, threshold=0.5, measure="krippendorff_alpha") == keys(*GATE_SETTING_KEYS)
        assert judge_gate_settings(engine).threshold == 0.5
        assert set_judge_gate_settings(engine).empty  # nothing asked: nothing written
        assert set_synonym_confirmed(engine, "gold", ["gold", "Au"], True) == keys(CONFIRMED_SYNONYMS)
        assert confirmed_synonyms(engine) == {"gold": ["Au", "gold"]}
        order = [c.key for c in reversed(project_contract(engine).classes)]
        reordered = set_contract_order(engine, order)
        assert changes_of(reordered) == keys(AUTHORITY_CONTRACT)
        assert [c.key for c in project_contract(engine).classes] == order == [c.key for c in reordered.value.classes]
    finally:
        project.close()
