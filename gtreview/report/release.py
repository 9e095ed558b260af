"""Release bundles: a signed-off set as a folder that anyone can verify offline.

A bundle holds ``rubric.json`` (exactly the text frozen by the sign-off),
``grading_guide.md``, ``questions.json`` (what candidates may see: id, section,
title, question), ``signoffs.json`` (who signed off and who approved each signed
question), ``manifest.json`` (sha256 and size of those four files, the set, the
sign-off and its content hash) and ``signature.json`` (Ed25519 over the exact
manifest bytes). The content hash is the sha256 of rubric.json's JSON value
re-serialised with sorted keys, no whitespace, UTF-8 (``canonical_hash``), so a
reader can recompute it without gtreview.

Verification is strict on purpose: any changed byte in any file fails it, and the
report names the file. signature.json is not covered by the signature, so it must
be byte-identical to its canonical form and its signer must equal the signed one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import Engine

from gtreview import __version__
from gtreview.core.jsonformat import dumps_harness_json, loads_json
from gtreview.core.jsonmodel import canonical_hash
from gtreview.core.rubric import Question, Rubric, rubric_from_json_text
from gtreview.interop.grading_guide import render_grading_guide
from gtreview.report.release_signoffs import ReleaseError as ReleaseError  # re-exported: callers catch it here
from gtreview.report.release_signoffs import choose_signoff, signoffs_document
from gtreview.report.signing import (
    SigningKey,
    SigningKeyError,
    b64,
    fingerprint,
    signature_valid,
    strict_b64decode,
)
from gtreview.report.staging import write_folder_atomically
from gtreview.store import sets
from gtreview.store.db import reading

SCHEMA_VERSION = 1
RUBRIC, GUIDE, QUESTIONS, SIGNOFFS = "rubric.json", "grading_guide.md", "questions.json", "signoffs.json"
MANIFEST, SIGNATURE = "manifest.json", "signature.json"
CONTENT_FILES = (RUBRIC, GUIDE, QUESTIONS, SIGNOFFS)
QUESTION_FIELDS = ("id", "section", "title", "question")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class FileEntry(_Strict):
    path: str
    sha256: str
    size: int


class Signer(_Strict):
    name: str
    public_key: str


class Manifest(_Strict):
    format: Literal["gtreview-release"] = "gtreview-release"
    schema_version: int
    set_name: str
    signoff_number: int
    content_hash: str
    question_count: int
    created_at: str
    gtreview_version: str
    signer: Signer
    files: list[FileEntry]


class SignatureFile(_Strict):
    algorithm: Literal["Ed25519"] = "Ed25519"
    signer: str
    public_key: str
    signed_file: Literal["manifest.json"] = "manifest.json"
    signed_sha256: str
    signature: str


class ReleaseInfo(BaseModel):
    folder: Path
    set_name: str
    signoff_number: int
    content_hash: str
    question_count: int
    signer: str
    fingerprint: str
    files: list[str]
    approved_without_calibration: list[str] | None = None  # as its sign-off recorded (None: not recorded)


class Problem(BaseModel):
    files: list[str]
    kind: str
    detail: str

    def one_line(self) -> str:
        return f"{', '.join(self.files)}: {self.kind}: {self.detail}"


class VerifyReport(BaseModel):
    bundle: str
    ok: bool = False
    readable: bool = True
    signer: str | None = None
    fingerprint: str | None = None
    set_name: str | None = None
    signoff_number: int | None = None
    content_hash: str | None = None
    created_at: str | None = None
    trusted_as: str | None = None  # who the signing key belongs to, when it is a trusted key
    problems: list[Problem] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    # Signed questions approved while calibration was not required (from signoffs.json).
    uncalibrated_approvals: list[str] = Field(default_factory=list)

    @property
    def changed_files(self) -> set[str]:
        return {name for problem in self.problems for name in problem.files}

    def add(self, files: str | list[str], kind: str, detail: str) -> None:
        self.problems.append(Problem(files=[files] if isinstance(files, str) else files, kind=kind, detail=detail))


def _dump(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def question_stub(question: Question) -> dict[str, Any]:
    """What a candidate may see of a question: no answer, gate, rubric, evidence or fixtures."""
    return {"id": question.id, "section": question.section, "title": question.title, "question": question.question}


def _check_out_dir(out_dir: Path) -> None:
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise ReleaseError(f"{out_dir} exists and is not an empty folder; choose a new output folder")


def create_release(
    engine: Engine, set_id: int, *, signoff_number: int | None = None, reviewer_key: SigningKey, out_dir: Path
) -> ReleaseInfo:
    """Write a signed bundle of one sign-off of a set (the latest when none is named).

    The bundle is assembled in a hidden sibling folder and renamed into place, so an
    interrupted release never leaves a half-written bundle under the chosen name.
    """
    _check_out_dir(out_dir)
    with reading(engine) as session:  # one read: the sign-off, its frozen text and its record agree
        chosen = choose_signoff(session, set_id, signoff_number)
        text = sets.signed_rubric_text(session, set_id, chosen.number)
        if _hash_of_json(text) != chosen.content_hash:
            raise ReleaseError(
                f"sign-off {chosen.number}'s stored rubric does not match its hash; the project was altered"
            )
        rubric = rubric_from_json_text(text)
        document = signoffs_document(session, set_id, chosen, rubric)
    set_name = str(document["set_name"])
    contents = {
        RUBRIC: text.encode("utf-8"),
        GUIDE: render_grading_guide(rubric).encode("utf-8"),
        QUESTIONS: dumps_harness_json([question_stub(q) for q in rubric.questions]).encode("utf-8"),
        SIGNOFFS: _dump(document),
    }
    public = reviewer_key.public_key
    manifest = Manifest(
        schema_version=SCHEMA_VERSION,
        set_name=set_name,
        signoff_number=chosen.number,
        content_hash=chosen.content_hash,
        question_count=len(rubric.questions),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        gtreview_version=__version__,
        signer=Signer(name=reviewer_key.name, public_key=b64(public)),
        files=[FileEntry(path=name, sha256=_sha256(data), size=len(data)) for name, data in sorted(contents.items())],
    )
    contents[MANIFEST] = _dump(manifest.model_dump())
    signature = SignatureFile(
        signer=reviewer_key.name,
        public_key=b64(public),
        signed_sha256=_sha256(contents[MANIFEST]),
        signature=b64(reviewer_key.private_key.sign(contents[MANIFEST])),
    )
    contents[SIGNATURE] = _dump(signature.model_dump())
    write_folder_atomically(out_dir, contents)
    return ReleaseInfo(
        folder=out_dir,
        set_name=set_name,
        signoff_number=chosen.number,
        content_hash=chosen.content_hash,
        question_count=len(rubric.questions),
        signer=reviewer_key.name,
        fingerprint=fingerprint(public),
        files=sorted(contents),
        approved_without_calibration=chosen.approved_without_calibration,
    )


def _hash_of_json(text: str) -> str | None:
    """The content hash of stored JSON text; None when a damaged text no longer parses."""
    try:
        return canonical_hash(json.loads(text))
    except ValueError:
        return None


# --- verification ---------------------------------------------------------------------------


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "top level"
    return f"{where}: {error['msg']}"


def _read_json(data: bytes, name: str, report: VerifyReport) -> Any:
    try:
        return loads_json(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        report.add(name, "malformed", f"not valid UTF-8 JSON ({exc})".splitlines()[0])
        return None


def _bundle_entries(folder: Path) -> dict[str, Path]:
    """Every file, link and empty folder under ``folder`` by relative path (nothing is followed)."""
    found: dict[str, Path] = {}
    for path in folder.rglob("*"):
        if path.is_dir() and not path.is_symlink() and any(path.iterdir()):
            continue
        found[path.relative_to(folder).as_posix()] = path
    return found


MAX_SIGNED_FILE_BYTES = 1024 * 1024  # a manifest or a signature is a few hundred bytes
MAX_CONTENT_FILE_BYTES = 512 * 1024 * 1024


def _read_at_most(path: Path, size: int) -> bytes:
    """The file's bytes, at most ``size + 1`` of them: one byte more than expected
    already fails the check, and a crafted bundle cannot make verify read forever."""
    if not _plain(path):
        return b""
    with path.open("rb") as handle:
        return handle.read(max(size, 0) + 1)


def _plain(path: Path) -> bool:
    """A regular file, not a link: a bundle's files must be its own bytes."""
    return path.is_file() and not path.is_symlink()


def _parse_signature(data: bytes, report: VerifyReport) -> tuple[SignatureFile, bytes, bytes] | None:
    try:
        parsed = SignatureFile.model_validate_json(data)
        key, signature = strict_b64decode(parsed.public_key), strict_b64decode(parsed.signature)
    except ValidationError as exc:
        report.add(SIGNATURE, "malformed", _first_error(exc))
        return None
    except SigningKeyError as exc:
        report.add(SIGNATURE, "malformed", f"public key or signature: {exc}")
        return None
    if data != _dump(parsed.model_dump()):
        report.add(SIGNATURE, "changed", "the file is not in the exact form gtreview writes (bytes were edited)")
    if len(key) != 32 or len(signature) != 64:
        report.add(SIGNATURE, "malformed", "an Ed25519 public key is 32 bytes and a signature 64")
        return None
    return parsed, key, signature


def _check_signature(
    manifest_bytes: bytes,
    signature_bytes: bytes,
    pinned: bytes | None,
    trusted: Mapping[bytes, str] | None,
    report: VerifyReport,
) -> Manifest | None:
    """The manifest, when it parses; problems name the file that was changed."""
    manifest = _parse_manifest(manifest_bytes, report)
    parsed = _parse_signature(signature_bytes, report)
    if parsed is None:
        return manifest
    signature_file, key, signature = parsed
    report.signer, report.fingerprint = signature_file.signer, fingerprint(key)
    valid = signature_valid(key, signature, manifest_bytes)
    same_sha = _sha256(manifest_bytes) == signature_file.signed_sha256
    if valid and not same_sha:
        report.add(SIGNATURE, "changed", "signed_sha256 is not the sha256 of the manifest it signs")
    elif not valid and same_sha:
        report.add(SIGNATURE, "signature-invalid", "the signature does not verify with the included public key")
    elif not valid:
        report.add(MANIFEST, "signature-invalid", "manifest.json is not the manifest that was signed")
    if valid and manifest is not None:
        if manifest.signer != Signer(name=signature_file.signer, public_key=signature_file.public_key):
            report.add(SIGNATURE, "signer-mismatch", "the signer named here is not the signer in the signed manifest")
    if pinned is not None and key != pinned:
        report.add(
            SIGNATURE,
            "untrusted-signer",
            f"signed by key {fingerprint(key)}, not by the required key {fingerprint(pinned)}",
        )
    elif pinned is None and trusted is not None:
        report.trusted_as = trusted.get(key)
        if valid and report.trusted_as is None:
            # Anyone can re-sign a bundle under any name: a valid signature by a key
            # nobody trusts is not a verified release.
            report.add(
                SIGNATURE,
                "untrusted-signer",
                f"signature valid but signed by an untrusted key {fingerprint(key)} "
                "(pin the reviewer's key with --public-key, or trust it with 'gtreview keys trust')",
            )
    return manifest


def _check_files(folder: Path, manifest: Manifest, entries: dict[str, Path], report: VerifyReport) -> dict[str, bytes]:
    """Listed files present and unchanged, nothing unlisted; returns the listed files' bytes."""
    listed = [entry.path for entry in manifest.files]
    if sorted(listed) != sorted(CONTENT_FILES):
        report.add(MANIFEST, "malformed", f"lists {', '.join(listed)} instead of {', '.join(CONTENT_FILES)}")
    present: dict[str, bytes] = {}
    for entry in manifest.files:
        if entry.path not in CONTENT_FILES:
            continue
        path = folder / entry.path
        if entry.path not in entries:
            report.add(entry.path, "missing", "listed in the manifest but not in the bundle")
            continue
        if not _plain(path):
            report.add(entry.path, "not-a-file", "listed in the manifest but not a regular file")
            continue
        data = _read_at_most(path, min(entry.size, MAX_CONTENT_FILE_BYTES))
        if len(data) != entry.size or _sha256(data) != entry.sha256:
            size = path.stat().st_size
            found = f"sha256 {_sha256(data)[:16]}…" if len(data) == size else "a different size"
            report.add(
                entry.path,
                "hash-mismatch",
                f"{found} ({size} bytes), manifest has {entry.sha256[:16]}… ({entry.size} bytes)",
            )
        present[entry.path] = data
    for name in sorted(set(entries) - set(listed) - {MANIFEST, SIGNATURE}):
        report.add(name, "extra", "not listed in the manifest")
    return present


def _check_contents(manifest: Manifest, files: dict[str, bytes], report: VerifyReport) -> None:
    """Cross-checks that the hashes alone do not give: the rubric is the signed-off one,
    the candidate file matches it and leaks nothing, the sign-off records agree."""
    data = _read_json(files[RUBRIC], RUBRIC, report) if RUBRIC in files else None
    if not isinstance(data, dict):
        return
    if canonical_hash(data) != manifest.content_hash:
        report.add(RUBRIC, "content-hash-mismatch", "its content hash is not the signed-off hash in the manifest")
    try:
        rubric = Rubric.model_validate(data)
    except ValidationError as exc:
        report.add(RUBRIC, "malformed", _first_error(exc))
        return
    if len(rubric.questions) != manifest.question_count:
        report.add(
            RUBRIC, "inconsistent", f"{len(rubric.questions)} questions, manifest says {manifest.question_count}"
        )
    if QUESTIONS in files:
        _check_questions(rubric, _read_json(files[QUESTIONS], QUESTIONS, report), report)
    if SIGNOFFS in files:
        _check_signoffs(manifest, data, _read_json(files[SIGNOFFS], SIGNOFFS, report), report)
    if GUIDE in files and files[GUIDE] != render_grading_guide(rubric).encode("utf-8"):
        report.warnings.append(f"{GUIDE} differs from this gtreview's rendering of {RUBRIC}")


def _check_questions(rubric: Rubric, stubs: Any, report: VerifyReport) -> None:
    if not isinstance(stubs, list) or not all(isinstance(s, dict) for s in stubs):
        report.add(QUESTIONS, "malformed", "expected a JSON array of question objects")
        return
    leaked = sorted({key for stub in stubs for key in stub if key not in QUESTION_FIELDS})
    if leaked:
        report.add(QUESTIONS, "leaked-field", f"fields beyond {', '.join(QUESTION_FIELDS)}: {', '.join(leaked)}")
    if [s.get("id") for s in stubs] != [q.id for q in rubric.questions]:
        report.add(QUESTIONS, "inconsistent", "question ids are not the rubric's ids in the rubric's order")
        return
    differing = [q.id for q, s in zip(rubric.questions, stubs, strict=True) if s != question_stub(q)]
    if differing:
        report.add(QUESTIONS, "inconsistent", f"text differs from {RUBRIC} for {', '.join(differing[:5])}")


def _check_signoffs(manifest: Manifest, rubric_data: dict[str, Any], document: Any, report: VerifyReport) -> None:
    if not isinstance(document, dict):
        report.add(SIGNOFFS, "malformed", "expected a JSON object")
        return
    records, approvals = _objects(document, "signoffs", report), _objects(document, "approvals", report)
    released = [r for r in records if r.get("number") == manifest.signoff_number]
    if document.get("released_signoff") != manifest.signoff_number or len(released) != 1:
        report.add(SIGNOFFS, "inconsistent", f"no single record of sign-off {manifest.signoff_number}")
    elif released[0].get("content_hash") != manifest.content_hash:
        report.add(SIGNOFFS, "inconsistent", "the released sign-off's content hash is not the manifest's")
    approved = {a["content_hash"] for a in approvals if isinstance(a.get("content_hash"), str)}
    questions = rubric_data.get("questions") or []
    missing = [str(q.get("id")) for q in questions if isinstance(q, dict) and canonical_hash(q) not in approved]
    if missing:
        report.add(SIGNOFFS, "inconsistent", f"no approval of the signed version of {', '.join(missing[:5])}")
    _note_uncalibrated(questions, approvals, report)


def _note_uncalibrated(questions: list[Any], approvals: list[dict[str, Any]], report: VerifyReport) -> None:
    """Say which signed questions were approved while calibration was not required: such a
    release must never read like a calibrated one."""
    required = {  # the latest approval of each signed version wins
        a["content_hash"]: a.get("calibration_required") for a in approvals if isinstance(a.get("content_hash"), str)
    }
    report.uncalibrated_approvals = [
        str(q.get("id")) for q in questions if isinstance(q, dict) and required.get(canonical_hash(q)) is False
    ]
    if report.uncalibrated_approvals:
        shown = ", ".join(report.uncalibrated_approvals[:10]) + ("…" if len(report.uncalibrated_approvals) > 10 else "")
        report.warnings.append(
            f"calibration was not required when {len(report.uncalibrated_approvals)} of {len(questions)} questions "
            f"were approved ({shown}): they may have no reproduced calibration"
        )


def _objects(document: dict[str, Any], key: str, report: VerifyReport) -> list[dict[str, Any]]:
    """The objects of a list under ``key``; a crafted file may put anything there."""
    value = document.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        report.add(SIGNOFFS, "malformed", f"{key} is a JSON {type(value).__name__}, not an array")
        return []
    return [item for item in value if isinstance(item, dict)]


def verify_release(
    bundle_dir: Path, *, public_key: bytes | None = None, trusted: Mapping[bytes, str] | None = None
) -> VerifyReport:
    """Check a bundle; ``public_key`` (raw 32 bytes) requires that signer, else the
    signer must be one of ``trusted`` (raw key -> who; None checks no trust at all)."""
    report = VerifyReport(bundle=str(bundle_dir))
    try:
        if not bundle_dir.is_dir():
            report.readable = False
            report.add(str(bundle_dir), "unreadable", "no such folder" if not bundle_dir.exists() else "not a folder")
            return report
        entries = _bundle_entries(bundle_dir)
        raw = {name: _read_at_most(bundle_dir / name, MAX_SIGNED_FILE_BYTES) for name in (MANIFEST, SIGNATURE)}
        raw = {name: data for name, data in raw.items() if _plain(bundle_dir / name)}
    except OSError as exc:
        report.readable = False
        report.add(str(bundle_dir), "unreadable", str(exc.strerror or exc))
        return report
    for name in (MANIFEST, SIGNATURE):
        if name not in raw:
            report.add(name, "missing" if name not in entries else "not-a-file", "every bundle has one, as a file")
    manifest = None
    if len(raw) == 2:
        manifest = _check_signature(raw[MANIFEST], raw[SIGNATURE], public_key, trusted, report)
    elif MANIFEST in raw:
        manifest = _parse_manifest(raw[MANIFEST], report)
    if manifest is not None:
        report.set_name, report.signoff_number = manifest.set_name, manifest.signoff_number
        report.content_hash, report.created_at = manifest.content_hash, manifest.created_at
        _check_contents(manifest, _check_files(bundle_dir, manifest, entries, report), report)
    report.ok = not report.problems
    return report


def _parse_manifest(data: bytes, report: VerifyReport) -> Manifest | None:
    try:
        manifest = Manifest.model_validate_json(data)
    except ValidationError as exc:
        report.add(MANIFEST, "malformed", _first_error(exc))
        return None
    if manifest.schema_version != SCHEMA_VERSION:
        report.add(
            MANIFEST, "unsupported", f"bundle schema {manifest.schema_version}; this gtreview reads {SCHEMA_VERSION}"
        )
        return None
    return manifest
