"""Signed release bundles: what they hold, and that any change to any file is caught and named."""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gtreview.app import workflow
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.errors import UserError
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import rubric_from_json_text
from gtreview.interop.grading_guide import render_grading_guide
from gtreview.report import release, signing
from gtreview.report.release import QUESTION_FIELDS, ReleaseError, create_release, verify_release
from gtreview.report.signing import (
    SigningKey,
    SigningKeyError,
    ensure_reviewer_key,
    list_reviewer_keys,
    load_signing_key,
    read_public_key_file,
    resolve_signing_key,
)
from gtreview.store import sets
from gtreview.store.db import reading

BUNDLE_FILES = ["grading_guide.md", "manifest.json", "questions.json", "rubric.json", "signature.json", "signoffs.json"]


class Signed:
    def __init__(self, root: Path) -> None:
        self.project_dir = root / "project"
        self.key_dir = root / "keys"
        self.bundle = root / "bundle"
        project = ensure_sample_project(self.project_dir)
        self.engine = project.engine
        with reading(self.engine) as session:
            self.set_id = sets.list_sets(session)[0].id
        with reading(self.engine) as session:
            for summary in sets.list_questions(session, self.set_id):
                workflow.approve(self.engine, self.set_id, summary.qid, reviewer="geo", comment="checked")
        self.signoff = workflow.sign_off(self.engine, self.set_id, reviewer="geo", comment="first release")
        self.key = ensure_reviewer_key("geo", self.key_dir)
        self.info = create_release(
            self.engine, self.set_id, reviewer_key=load_signing_key("geo", self.key_dir), out_dir=self.bundle
        )


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Signed]:
    state = Signed(tmp_path_factory.mktemp("release"))
    yield state
    state.engine.dispose()


@pytest.fixture()
def copy(signed: Signed, tmp_path: Path) -> Path:
    """A fresh copy of the bundle to damage."""
    return Path(shutil.copytree(signed.bundle, tmp_path / "bundle"))


def test_a_fresh_bundle_verifies_and_holds_exactly_the_signoff(signed: Signed) -> None:
    report = verify_release(signed.bundle)
    assert report.ok, [p.one_line() for p in report.problems]
    assert (report.signer, report.fingerprint, report.signoff_number) == ("geo", signed.key.fingerprint, 1)
    assert sorted(p.name for p in signed.bundle.iterdir()) == BUNDLE_FILES == signed.info.files
    text = workflow.signed_rubric_text(signed.engine, signed.set_id, 1)
    assert (signed.bundle / "rubric.json").read_bytes() == text.encode("utf-8")  # byte for byte
    rubric = rubric_from_json_text(text)
    assert (signed.bundle / "grading_guide.md").read_text(encoding="utf-8") == render_grading_guide(rubric)
    manifest = json.loads((signed.bundle / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["content_hash"] == signed.signoff.content_hash == canonical_hash(json.loads(text))
    assert manifest["set_name"] == "Mount Wirrim Goldfield (sample)" and manifest["question_count"] == 10
    assert [f["path"] for f in manifest["files"]] == [
        "grading_guide.md",
        "questions.json",
        "rubric.json",
        "signoffs.json",
    ]
    signoffs = json.loads((signed.bundle / "signoffs.json").read_text(encoding="utf-8"))
    (record,) = signoffs["signoffs"]
    assert (record["number"], record["reviewer"], record["comment"]) == (1, "geo", "first release")
    assert record["content_hash"] == signed.signoff.content_hash and record["question_count"] == 10
    approvals = signoffs["approvals"]
    assert sorted(a["question_id"] for a in approvals) == sorted(q.id for q in rubric.questions)
    assert {(a["actor"], a["comment"]) for a in approvals} == {("geo", "checked")}
    for approval in approvals:
        question = rubric.question_by_id(approval["question_id"])
        assert question is not None and approval["content_hash"] == canonical_hash(question.to_json_dict())


def test_the_questions_file_has_no_answers(signed: Signed) -> None:
    stubs = json.loads((signed.bundle / "questions.json").read_text(encoding="utf-8"))
    rubric = rubric_from_json_text((signed.bundle / "rubric.json").read_text(encoding="utf-8"))
    assert [tuple(s) for s in stubs] == [QUESTION_FIELDS] * len(rubric.questions)
    assert [s["id"] for s in stubs] == [q.id for q in rubric.questions]
    text = (signed.bundle / "questions.json").read_text(encoding="utf-8")
    for question in rubric.questions:
        secrets = [question.model_answer, question.principle, *(c.credit_if for c in question.components)]
        secrets += [e.claim for e in question.evidence] + [f.response_text for f in question.calibration]
        assert not [s for s in secrets if s and s in text]


def flipped(path: Path, position: int) -> bytes:
    original = path.read_bytes()
    data = bytearray(original)
    data[position] ^= 0x01
    path.write_bytes(bytes(data))
    return original


@pytest.mark.parametrize("name", BUNDLE_FILES)
def test_one_changed_byte_anywhere_fails_naming_the_file(copy: Path, name: str) -> None:
    path = copy / name
    size = path.stat().st_size
    positions = sorted({0, 1, size // 7, size // 3, size // 2, 2 * size // 3, size - 2, size - 1})
    if name == "signature.json":
        positions = list(range(size))  # not covered by the signature: every byte, base64 tails included
    elif name == "manifest.json":
        positions = sorted({*range(0, size, 5), size - 1})
    for position in positions:
        original = flipped(path, position)
        report = verify_release(copy)
        path.write_bytes(original)
        assert not report.ok, f"{name} byte {position} changed and the bundle still verified"
        assert name in report.changed_files, (position, [p.one_line() for p in report.problems])
    assert verify_release(copy).ok


@pytest.mark.parametrize(
    "document",
    [
        {"signoffs": 5, "approvals": [], "released_signoff": 1},
        {"signoffs": [], "approvals": [{"content_hash": ["unhashable"]}], "released_signoff": 1},
        {"signoffs": "text", "approvals": {"a": 1}},
        "[" * 100_000,
    ],
    ids=["number-for-list", "unhashable-hash", "wrong-types", "deep"],
)
def test_a_crafted_signoffs_file_is_a_finding_not_a_crash(copy: Path, document: object) -> None:
    text = document if isinstance(document, str) else json.dumps(document)
    (copy / "signoffs.json").write_text(text, encoding="utf-8")
    report = verify_release(copy)
    assert not report.ok and report.readable
    assert {"signoffs.json"} <= report.changed_files
    assert all("\n" not in problem.one_line() for problem in report.problems)


def test_a_grown_file_is_read_only_as_far_as_its_listed_size(copy: Path) -> None:
    listed = (copy / "questions.json").stat().st_size
    with (copy / "questions.json").open("ab") as handle:
        handle.write(b" " * 1_000_000)
    report = verify_release(copy)
    (problem,) = [p for p in report.problems if p.files == ["questions.json"]]
    assert problem.kind == "hash-mismatch" and f"a different size ({listed + 1_000_000} bytes)" in problem.detail


def test_a_missing_file_an_extra_file_and_an_extra_folder_are_named(copy: Path) -> None:
    (copy / "questions.json").unlink()
    (copy / "notes.txt").write_text("hello", encoding="utf-8")
    (copy / "extra").mkdir()
    report = verify_release(copy)
    assert not report.ok
    kinds = {(p.files[0], p.kind) for p in report.problems}
    assert {("questions.json", "missing"), ("notes.txt", "extra"), ("extra", "extra")} <= kinds
    shutil.rmtree(copy)
    copy.mkdir()
    report = verify_release(copy)
    assert {("manifest.json", "missing"), ("signature.json", "missing")} <= {
        (p.files[0], p.kind) for p in report.problems
    }


def test_another_reviewers_key_does_not_verify(copy: Path, signed: Signed, tmp_path: Path) -> None:
    other = ensure_reviewer_key("mallory", tmp_path / "keys")
    signature = json.loads((copy / "signature.json").read_text(encoding="utf-8"))
    signature["public_key"] = other.public_key
    (copy / "signature.json").write_text(json.dumps(signature, indent=2) + "\n", encoding="utf-8")
    report = verify_release(copy)
    assert not report.ok
    assert [(p.files, p.kind) for p in report.problems] == [(["signature.json"], "signature-invalid")]


def test_a_re_signed_bundle_is_valid_but_fails_when_the_signer_is_pinned(
    copy: Path, signed: Signed, tmp_path: Path
) -> None:
    """Whoever holds a key can sign a bundle; --public-key is how a reader trusts only the reviewer."""
    re_sign(copy, load_signing_key(ensure_reviewer_key("mallory", tmp_path / "keys").name, tmp_path / "keys"))
    assert verify_release(copy).ok
    geo_pub = read_public_key_file(signed.key_dir / "geo.pub")
    pinned = verify_release(copy, public_key=geo_pub)
    assert [(p.files, p.kind) for p in pinned.problems] == [(["signature.json"], "untrusted-signer")]
    assert verify_release(signed.bundle, public_key=geo_pub).ok


def re_sign(bundle: Path, key: SigningKey, signer: str | None = None) -> None:
    """Sign ``bundle`` again with ``key``, as anyone holding a key can."""
    name = signer or key.name
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    manifest["signer"] = {"name": name, "public_key": base64.b64encode(key.public_key).decode()}
    data = release._dump(manifest)
    (bundle / "manifest.json").write_bytes(data)
    signature = release.SignatureFile(
        signer=name,
        public_key=manifest["signer"]["public_key"],
        signed_sha256=release._sha256(data),
        signature=base64.b64encode(key.private_key.sign(data)).decode(),
    )
    (bundle / "signature.json").write_bytes(release._dump(signature.model_dump()))


def test_a_bundle_re_signed_under_the_reviewers_name_is_untrusted(copy: Path, signed: Signed, tmp_path: Path) -> None:
    """Without --public-key, a valid signature is not enough: the key must be a trusted one."""
    mallory = load_signing_key(ensure_reviewer_key("mallory", tmp_path / "keys").name, tmp_path / "keys")
    re_sign(copy, mallory, signer="geo")  # a forger may claim any name
    geo = read_public_key_file(signed.key_dir / "geo.pub")
    report = verify_release(copy, trusted={geo: "geo"})
    assert not report.ok and report.trusted_as is None
    assert [(p.files, p.kind) for p in report.problems] == [(["signature.json"], "untrusted-signer")]
    fingerprint = signing.fingerprint(mallory.public_key)
    assert f"signature valid but signed by an untrusted key {fingerprint}" in report.problems[0].detail
    assert not verify_release(copy, trusted={}).ok
    trusted = verify_release(signed.bundle, trusted={geo: "geo"})
    assert trusted.ok and trusted.trusted_as == "geo"


def test_trusted_keys_file_round_trip_and_refusals(signed: Signed, tmp_path: Path) -> None:
    trust_file = tmp_path / "config" / "trusted_keys.txt"
    assert signing.read_trusted_keys(trust_file) == {}
    geo = read_public_key_file(signed.key_dir / "geo.pub")
    signing.add_trusted_key(geo, "Geo  Logist", trust_file)
    signing.add_trusted_key(geo, "Geo Logist", trust_file)  # once only
    assert signing.read_trusted_keys(trust_file) == {geo: "Geo Logist"}
    assert len(trust_file.read_text(encoding="utf-8").splitlines()) == 1
    trust_file.write_text("# reviewers\n\nnot-a-key someone\n", encoding="utf-8")
    with pytest.raises(SigningKeyError, match="line 3 is not 'BASE64KEY NAME'"):
        signing.read_trusted_keys(trust_file)


def test_the_private_key_is_private_and_never_in_the_bundle(signed: Signed) -> None:
    private = signed.key_dir / "geo.key"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    pem = private.read_bytes()
    assert b"PRIVATE KEY" in pem
    raw_private = load_signing_key("geo", signed.key_dir).private_key.private_bytes_raw()
    for folder in (signed.bundle, signed.project_dir):
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert b"PRIVATE KEY" not in data and raw_private not in data
                assert base64.b64encode(raw_private) not in data
    assert [k.name for k in list_reviewer_keys(signed.key_dir)] == ["geo"]
    assert ensure_reviewer_key("geo", signed.key_dir) == signed.key  # the same key, not a new one


def test_keys_readable_by_others_or_unknown_are_refused(tmp_path: Path, signed: Signed) -> None:
    loose = tmp_path / "loose.key"
    shutil.copyfile(signed.key_dir / "geo.key", loose)
    loose.chmod(0o644)
    with pytest.raises(SigningKeyError, match="chmod 600"):
        resolve_signing_key(str(loose))
    loose.chmod(0o600)
    assert resolve_signing_key(str(loose)).public_key == load_signing_key("geo", signed.key_dir).public_key
    with pytest.raises(SigningKeyError, match="no reviewer key named 'nobody'"):
        resolve_signing_key("nobody", tmp_path)
    with pytest.raises(SigningKeyError, match="not a usable key name"):
        ensure_reviewer_key("../evil", tmp_path)


def test_refusals(signed: Signed, tmp_path: Path) -> None:
    key = load_signing_key("geo", signed.key_dir)
    with pytest.raises(ReleaseError, match="not an empty folder"):
        create_release(signed.engine, signed.set_id, reviewer_key=key, out_dir=signed.bundle)
    with pytest.raises(ReleaseError, match="no sign-off 7 \\(it has 1\\)"):
        create_release(signed.engine, signed.set_id, signoff_number=7, reviewer_key=key, out_dir=tmp_path / "b")
    with pytest.raises(ReleaseError, match="no set 99"):
        create_release(signed.engine, 99, reviewer_key=key, out_dir=tmp_path / "b")
    fresh = ensure_sample_project(tmp_path / "fresh")
    try:
        with pytest.raises(ReleaseError, match="has no sign-off"):
            create_release(fresh.engine, 1, reviewer_key=key, out_dir=tmp_path / "b")
    finally:
        fresh.close()
    assert not (tmp_path / "b").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no half-written bundle left


def test_an_older_signoff_can_be_released(signed: Signed, tmp_path: Path) -> None:
    second = workflow.sign_off(signed.engine, signed.set_id, reviewer="geo2", comment="again")
    key = load_signing_key("geo", signed.key_dir)
    (tmp_path / "empty").mkdir()
    info = create_release(signed.engine, signed.set_id, signoff_number=1, reviewer_key=key, out_dir=tmp_path / "empty")
    latest = create_release(signed.engine, signed.set_id, reviewer_key=key, out_dir=tmp_path / "latest")
    assert (info.signoff_number, latest.signoff_number) == (1, second.number)
    old = json.loads((tmp_path / "empty" / "signoffs.json").read_text(encoding="utf-8"))
    new = json.loads((tmp_path / "latest" / "signoffs.json").read_text(encoding="utf-8"))
    assert [s["number"] for s in old["signoffs"]] == [1] and [s["number"] for s in new["signoffs"]] == [1, 2]
    assert verify_release(tmp_path / "empty").ok and verify_release(tmp_path / "latest").ok


# --- the command line ------------------------------------------------------------------------


def cli(argv: list[str]) -> int:
    """Run a command of gtreview.cli.release the way gtreview.cli.main does."""
    from gtreview.cli.main import build_parser

    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except UserError as exc:
        print(f"gtreview: error: {exc}")
        return exc.exit_status


def test_cli_keys_release_and_verify(signed: Signed, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = str(tmp_path / "keys")
    assert cli(["keys", "create", "ann", "--key-dir", keys, "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["name"] == "ann" and len(base64.b64decode(created["public_key"])) == 32
    assert cli(["keys", "list", "--key-dir", keys]) == 0 and "ann" in capsys.readouterr().out
    bundle = tmp_path / "out"
    project = ["--project", str(signed.project_dir)]
    argv = ["release", "create", "--set", str(signed.set_id), "--key", "ann", "--key-dir", keys, "-o", str(bundle)]
    assert cli([*argv, *project]) == 0
    assert "signed by ann" in capsys.readouterr().out
    assert cli([*argv, *project]) == 2 and "not an empty folder" in capsys.readouterr().out
    assert cli(["release", "verify", str(bundle), "--public-key", str(tmp_path / "keys" / "ann.pub")]) == 0
    assert "valid" in capsys.readouterr().out
    flipped(bundle / "rubric.json", 100)
    assert cli(["release", "verify", str(bundle), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is False and "rubric.json" in result["changed_files"]
    # Without --public-key the signer must be trusted: ann's key is in no trusted place yet.
    fresh = tmp_path / "fresh"
    assert cli([*argv[:-1], str(fresh), *project]) == 0
    capsys.readouterr()
    trust = ["--trusted-keys", str(tmp_path / "trusted.txt"), "--key-dir", str(tmp_path / "no-keys")]
    assert cli(["release", "verify", str(fresh), *trust]) == 1
    out = capsys.readouterr().out
    assert "signature valid but signed by an untrusted key" in out and "INVALID" in out
    assert cli(["keys", "trust", str(tmp_path / "keys" / "ann.pub"), "--name", "Ann", trust[0], trust[1]]) == 0
    assert "trusted Ann" in capsys.readouterr().out
    assert cli(["release", "verify", str(fresh), *trust]) == 0
    assert "valid" in (out := capsys.readouterr().out) and "trusted as Ann" in out
    assert cli(["release", "verify", str(fresh), "--key-dir", keys, trust[0], str(tmp_path / "none.txt")]) == 0
    assert "ann (your reviewer key)" in capsys.readouterr().out
    assert cli(["release", "verify", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().out
    assert cli(["release", "create", "--set", "1", "--key", "nobody", "--key-dir", keys, "-o", "x", *project]) == 2


def test_a_killed_release_leaves_nothing_behind_once_the_next_one_runs(signed: Signed, tmp_path: Path) -> None:
    with subprocess.Popen([sys.executable, "-c", "pass"]) as gone:
        gone.wait()
    killed = tmp_path / f".bundle.partial-{gone.pid}-0badc0de"  # what a SIGKILLed release leaves
    killed.mkdir()
    (killed / "rubric.json").write_text("{")
    busy = tmp_path / f".bundle.partial-{os.getpid()}-0000beef"  # a release still being written
    busy.mkdir()
    create_release(
        signed.engine, signed.set_id, reviewer_key=load_signing_key("geo", signed.key_dir), out_dir=tmp_path / "bundle"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [busy.name, "bundle"]


def test_the_project_trusts_the_keys_that_signed_its_releases(
    signed: Signed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anyone who has the project verifies the team's releases (every key that signed
    one of them) without trusting each key by hand; a forger's key stays untrusted."""
    keys = str(tmp_path / "keys")
    assert cli(["keys", "create", "bea", "--key-dir", keys]) == 0
    bundle = tmp_path / "out"
    project = ["--project", str(signed.project_dir)]
    argv = ["release", "create", "--set", str(signed.set_id), "--key", "bea", "--key-dir", keys, "-o", str(bundle)]
    assert cli([*argv, *project]) == 0
    capsys.readouterr()
    elsewhere = [
        "--trusted-keys",
        str(tmp_path / "none.txt"),
        "--key-dir",
        str(tmp_path / "no-keys"),
    ]  # another machine
    assert cli(["release", "verify", str(bundle), *elsewhere]) == 1
    assert "untrusted key" in capsys.readouterr().out
    assert cli(["release", "verify", str(bundle), *elsewhere, *project]) == 0
    assert "a key trusted as bea" in capsys.readouterr().out
    mallory = load_signing_key(ensure_reviewer_key("mallory", tmp_path / "forger").name, tmp_path / "forger")
    re_sign(bundle, mallory, signer="bea")  # a forger claims the name
    assert cli(["release", "verify", str(bundle), *elsewhere, *project]) == 1
    assert "untrusted key" in capsys.readouterr().out
    assert (
        cli(
            [
                "keys",
                "trust",
                str(tmp_path / "forger" / "mallory.pub"),
                "--name",
                "M",
                "--project",
                str(tmp_path / "typo"),
            ]
        )
        == 2
    )
    assert "typo does not exist" in capsys.readouterr().out  # one line, and nothing trusted there


def test_a_second_key_under_a_trusted_name_cannot_release_from_the_project(
    signed: Signed, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A release trusts its key in the project silently, so a namesake key (a forger's
    "cara") is refused before anything is written or trusted."""
    project = ["--project", str(signed.project_dir)]
    trust_file = signed.project_dir / "trusted_keys.txt"
    for keys, out in (("keys", "first"), ("forger", "second")):
        assert cli(["keys", "create", "cara", "--key-dir", str(tmp_path / keys)]) == 0
        argv = ["release", "create", "--set", str(signed.set_id), "--key", "cara", "--key-dir", str(tmp_path / keys)]
        status = cli([*argv, "-o", str(tmp_path / out), *project])
        if out == "first":
            assert status == 0
            trusted_before = trust_file.read_bytes()
    capsys.readouterr()
    assert status == 2
    assert not (tmp_path / "second").exists() and trust_file.read_bytes() == trusted_before
