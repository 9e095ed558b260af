"""Implementations of the CLI commands: parse arguments, call one service, print."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gtreview.cli import EXIT_FINDINGS, EXIT_OK, CliError, print_json, project_dir
from gtreview.core.findings import count_errors, count_warnings
from gtreview.core.rubric import rubric_to_json_text
from gtreview.core.rubric_text import RubricReadError
from gtreview.corpus.readers import CorpusImportError
from gtreview.services.rubric_files import RubricFile, read_rubric_file, to_rubric

# Store and corpus modules are imported inside the commands that need them, so that
# `rubric validate` starts without loading SQLAlchemy.
if TYPE_CHECKING:
    from gtreview.services.review import EvidenceCheck
    from gtreview.store.project import Project


def _read(path: Path) -> RubricFile:
    try:
        return read_rubric_file(path)
    except RubricReadError as exc:
        raise CliError(f"{path}: {exc}") from None


def open_cli_project(args: argparse.Namespace) -> Project:
    """The project named by --project (or the default), with a one-line error."""
    from gtreview.store.project import ProjectError, open_project

    try:
        return open_project(project_dir(args))
    except ProjectError as exc:
        raise CliError(str(exc)) from None


def rubric_validate(args: argparse.Namespace) -> int:
    rubric = _read(args.file)
    errors, warnings = count_errors(rubric.findings), count_warnings(rubric.findings)
    questions = rubric.data.get("questions")
    count = len(questions) if isinstance(questions, list) else 0
    if args.json:
        print_json(
            {
                "ok": errors == 0,
                "file": str(args.file),
                "questions": count,
                "errors": errors,
                "warnings": warnings,
                "findings": [f.model_dump(mode="json") for f in rubric.findings],
            }
        )
    else:
        for finding in rubric.findings:
            print(f"{args.file}: {finding.one_line()}")
        print(f"{args.file}: {count} questions, {errors} errors, {warnings} warnings")
    return EXIT_FINDINGS if errors else EXIT_OK


def rubric_import(args: argparse.Namespace) -> int:
    from gtreview.services.review import check_rubric_evidence, corpus_index
    from gtreview.store.sets_repo import SetImportError, import_rubric

    rubric_file = _read(args.file)
    try:
        rubric = to_rubric(rubric_file)
    except RubricReadError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    project = open_cli_project(args)
    try:
        set_id = import_rubric(
            project.engine, rubric, source_name=args.file.name, source_sha256=rubric_file.sha256, actor=_actor()
        )
        checks = check_rubric_evidence(corpus_index(project.engine), rubric)
    except SetImportError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    finally:
        project.close()
    errors, warnings = count_errors(rubric_file.findings), count_warnings(rubric_file.findings)
    unresolved = [c for c in checks if not c.resolution.resolved]
    if args.json:
        print_json(
            {
                "ok": True,
                "set_id": set_id,
                "questions": len(rubric.questions),
                "errors": errors,
                "warnings": warnings,
                "locators": len(checks),
                "unresolved_locators": [_check_json(c) for c in unresolved],
            }
        )
    else:
        print(f"imported {len(rubric.questions)} questions as set {set_id} ({errors} errors, {warnings} warnings)")
        print(f"{len(checks) - len(unresolved)} of {len(checks)} evidence locators resolve in the project corpus")
        for check in unresolved:
            print(f"  unresolved {check.question_id} evidence[{check.position}]: {check.resolution.reason}")
    return EXIT_OK


def _check_json(check: EvidenceCheck) -> dict[str, object]:
    return {"question_id": check.question_id, "evidence": check.position, **check.resolution.model_dump(mode="json")}


def rubric_export(args: argparse.Namespace) -> int:
    from gtreview.store.sets_repo import export_rubric, list_sets

    project = open_cli_project(args)
    try:
        sets = list_sets(project.engine)
        set_id = args.set_id
        if set_id is None:
            if len(sets) != 1:
                raise CliError(f"the project has {len(sets)} sets; name one with --set")
            set_id = sets[0].id
        if set_id not in {s.id for s in sets}:
            raise CliError(f"the project has no set {set_id}")
        rubric = export_rubric(project.engine, set_id)
    finally:
        project.close()
    if args.format == "md":
        from gtreview.report.grading_guide import render_grading_guide

        text = render_grading_guide(rubric)
    else:
        text = rubric_to_json_text(rubric)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return EXIT_OK


def rubric_locators(args: argparse.Namespace) -> int:
    from gtreview.services.review import check_rubric_evidence, corpus_index

    rubric = to_rubric(_read(args.file))
    project = open_cli_project(args)
    try:
        checks = check_rubric_evidence(corpus_index(project.engine), rubric)
    finally:
        project.close()
    unresolved = [c for c in checks if not c.resolution.resolved]
    if args.json:
        print_json(
            {
                "ok": not unresolved,
                "resolved": len(checks) - len(unresolved),
                "unresolved": len(unresolved),
                "locators": [_check_json(c) for c in checks],
            }
        )
    else:
        for check in checks:
            res = check.resolution
            where = f"{check.question_id} evidence[{check.position}]: {res.source} | {res.locator}"
            print(f"ok          {where}" if res.resolved else f"UNRESOLVED  {where}: {res.reason}")
        print(f"{len(checks) - len(unresolved)} of {len(checks)} locators resolve")
    return EXIT_FINDINGS if unresolved else EXIT_OK


def corpus_import(args: argparse.Namespace) -> int:
    from gtreview.services.corpus_import import import_corpus
    from gtreview.store.corpus_repo import DocumentConflictError

    project = open_cli_project(args)
    try:
        report = import_corpus(project.engine, args.paths)
    except (CorpusImportError, DocumentConflictError) as exc:
        raise CliError(f"{exc} (nothing was imported)" if "nothing" not in str(exc) else str(exc)) from None
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, **report.model_dump()})
    else:
        for name in report.added:
            print(f"added      {name}")
        for name in report.unchanged:
            print(f"unchanged  {name}")
        print(f"{len(report.added)} added, {len(report.unchanged)} already in the project")
    return EXIT_OK


def corpus_list(args: argparse.Namespace) -> int:
    from gtreview.store.corpus_repo import list_documents

    project = open_cli_project(args)
    try:
        documents = list_documents(project.engine)
    finally:
        project.close()
    if args.json:
        print_json(
            [
                {
                    "name": d.name,
                    "title": d.title,
                    "kind": d.kind,
                    "pages": d.page_count,
                    "rows": d.row_count,
                    "sha256": d.sha256,
                }
                for d in documents
            ]
        )
    else:
        for d in documents:
            extent = f"{d.row_count} rows" if d.kind == "csv" else f"{d.page_count} pages"
            print(f"{d.name}  ({d.kind}, {extent})  {d.title}")
    return EXIT_OK


def run_gui(args: argparse.Namespace) -> int:
    from gtreview.ui.app import run_app

    return run_app(project=args.project, sample=args.sample)


def _actor() -> str:
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name on some systems
        return "unknown"
