"""Two writer processes editing one question set at once, and an audit of what they left.

Each writer owns one field of every question (alice the title, bob the principle) and
makes ``edits`` edits, each on a question picked at random from a small set so the two
collide often. Half are an editor's (made on the version it read, so a newer version
refuses them as a conflict, and the writer re-reads and tries again, as an expert would
after the notice); half are a script's (applied to whatever is current). Afterwards
every saved version is read back:

- a **lost** edit is one its writer was told was saved whose value is not in that
  version, or whose value is not the question's final one although it was its writer's
  last word on that question;
- a **reverted** edit is a version that changed a field its author does not own (it
  wrote back an older value over the other writer's newer one);
- **conflicts** are stale edits refused (and then redone on the newer version);
- **errors** are anything else a writer met (a raw IntegrityError, "database is locked").

Used by ``benchmarks/bench_two_writers.py`` (hundreds of edits) and by the bounded test
in ``tests/app/test_two_writers.py``.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gtreview.store.db import reading, unit_of_work

FIELDS = {"alice": "title", "bob": "principle"}
QUESTIONS = ("A1", "A2", "A3")


@dataclass
class WriterLog:
    name: str
    saved: list[tuple[str, int, str]] = field(default_factory=list)  # question, version, value
    conflicts: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class Audit:
    edits: int
    saved: int
    conflicts: int
    lost: int
    reverted: int
    errors: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "edits": self.edits,
            "saved": self.saved,
            "conflicts_refused": self.conflicts,
            "lost": self.lost,
            "reverted": self.reverted,
            "errors": len(self.errors),
            "first_errors": self.errors[:3],
        }


def make_project(folder: Path) -> int:
    """A project with a three-question set; returns the set's id."""
    from gtreview.core.rubric import Rubric
    from gtreview.store import sets
    from gtreview.store.project import create_project
    from tests.rubric_factory import rubric

    project = create_project(folder)
    try:
        data = rubric(len(QUESTIONS))
        with unit_of_work(project.engine) as tx:
            return sets.import_rubric(
                tx, Rubric.model_validate(data), source_name="two.json", source_sha256="two", actor="setup"
            )
    finally:
        project.close()


def write(folder: Path, set_id: int, name: str, edits: int, seed: int, out: Path) -> None:
    """One writer process: ``edits`` edits of its own field; its log goes to ``out`` (JSON)."""
    from gtreview.app import editing
    from gtreview.store import sets
    from gtreview.store.project import open_project

    project = open_project(folder)
    log = WriterLog(name)
    rng = random.Random(seed)
    path = (FIELDS[name],)
    try:
        for n in range(edits):
            qid = rng.choice(QUESTIONS)
            value = f"{name} {n}"
            as_editor = n % 2 == 0
            for _attempt in range(50):  # a conflict is redone on the newer version, as after the notice
                try:
                    base = None
                    if as_editor:
                        with reading(project.engine) as session:
                            base = next(q.current_version for q in sets.list_questions(session, set_id) if q.qid == qid)
                    result = editing.apply_edit(
                        project.engine, set_id, qid, path, value, author=name, base_version=base
                    )
                except editing.EditConflictError:
                    log.conflicts += 1
                    continue
                except Exception as exc:  # noqa: BLE001 - what the audit is for: any other failure is a finding
                    log.errors.append(f"{type(exc).__name__}: {exc}"[:200])
                    break
                log.saved.append((qid, result.version, value))
                break
    finally:
        project.close()
        out.write_text(json.dumps(log.__dict__), encoding="utf-8")


def audit(folder: Path, set_id: int, logs: list[WriterLog], edits: int) -> Audit:
    """Read every version back and count lost and reverted edits."""
    from gtreview.store import sets
    from gtreview.store.project import open_project

    project = open_project(folder)
    try:
        versions: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for qid in QUESTIONS:
            with reading(project.engine) as session:
                infos = sets.list_versions(session, set_id, qid)
            with reading(project.engine) as session:
                versions[qid] = [
                    (v.author, sets.load_version(session, set_id, qid, v.version).to_json_dict()) for v in infos
                ]
    finally:
        project.close()
    lost = 0
    for log in logs:
        key = FIELDS[log.name]
        last: dict[str, str] = {}
        for qid, version, value in log.saved:
            history = versions[qid]
            if version > len(history) or history[version - 1][1].get(key) != value:
                lost += 1
            last[qid] = value
        lost += sum(1 for qid, value in last.items() if versions[qid][-1][1].get(key) != value)
    reverted = 0
    for history in versions.values():
        for (_, before), (author, after) in itertools.pairwise(history):
            owned = FIELDS.get(author)
            if any(before.get(k) != after.get(k) for k in set(before) | set(after) if k != owned):
                reverted += 1
    return Audit(
        edits=edits * len(logs),
        saved=sum(len(log.saved) for log in logs),
        conflicts=sum(log.conflicts for log in logs),
        lost=lost,
        reverted=reverted,
        errors=[e for log in logs for e in log.errors],
    )


def run_two_writers(folder: Path, edits: int, seed: int = 0) -> Audit:
    """Two processes (spawned, so nothing is shared but the project folder) make ``edits``
    edits each at once; returns the audit."""
    set_id = make_project(folder)
    context = multiprocessing.get_context("spawn")
    outs = {name: folder / f"{name}.json" for name in FIELDS}
    workers = [
        context.Process(target=write, args=(folder, set_id, name, edits, seed + i, outs[name]))
        for i, name in enumerate(FIELDS)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    logs = []
    for name, out in outs.items():
        if not out.exists():
            logs.append(WriterLog(name, errors=[f"{name}'s process died"]))
            continue
        raw = json.loads(out.read_text(encoding="utf-8"))
        logs.append(WriterLog(name, [tuple(s) for s in raw["saved"]], raw["conflicts"], raw["errors"]))
    return audit(folder, set_id, logs, edits)
