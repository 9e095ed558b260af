"""``gtreview rubric validate|import|export|locators``: Groundtruth rubric files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    ID,
    CliError,
    actor,
    add_json,
    add_project,
    open_cli_project,
    print_json,
)
from gtreview.core.findings import count_errors, count_warnings
from gtreview.core.rubric import rubric_to_json_text
from gtreview.core.rubric_text import RubricReadError
from gtreview.interop.rubric_files import RubricFile, read_rubric_file, to_rubric

# Store and corpus modules are imported inside the commands that need them, so that
# `rubric validate` starts without loading SQLAlchemy.
if TYPE_CHECKING:
    from gtreview.app.review import EvidenceCheck


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rubric = commands.add_parser("rubric", help="validate, import and export Groundtruth rubrics").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    validate = rubric.add_parser("validate", help="check every rule of a rubric file")
    validate.add_argument("file", type=Path)
    add_json(validate, "print findings as JSON")
    validate.set_defaults(handler=rubric_validate)
    imp = rubric.add_parser("import", help="import a rubric into the project as a benchmark set")
    imp.add_argument("file", type=Path)
    add_json(imp)
    add_project(imp)
    imp.set_defaults(handler=rubric_import)
    exp = rubric.add_parser("export", help="export a benchmark set")
    exp.add_argument("--set", dest="set_id", type=ID, default=None, help="set id (default: the only set)")
    exp.add_argument("--format", type=str, choices=("json", "md"), default="json")
    exp.add_argument("-o", "--output", type=Path, required=True)
    add_project(exp)
    exp.set_defaults(handler=rubric_export)
    loc = rubric.add_parser("locators", help="resolve a rubric's evidence locators against the project corpus")
    loc.add_argument("file", type=Path)
    add_json(loc)
    add_project(loc)
    loc.set_defaults(handler=rubric_locators)


def _read(path: Path) -> RubricFile:
    try:
        return read_rubric_file(path)
    except RubricReadError as exc:
        raise CliError(f"{path}: {exc}") from None


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
    from gtreview.app.review import check_rubric_evidence, corpus_index
    from gtreview.store.sets_repo import SetImportError, import_rubric

    rubric_file = _read(args.file)
    try:
        rubric = to_rubric(rubric_file)
    except RubricReadError as exc:
        raise CliError(f"{args.file}: {exc}") from None
    project = open_cli_project(args)
    try:
        set_id = import_rubric(
            project.engine, rubric, source_name=args.file.name, source_sha256=rubric_file.sha256, actor=actor()
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
        from gtreview.interop.grading_guide import render_grading_guide

        text = render_grading_guide(rubric)
    else:
        text = rubric_to_json_text(rubric)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return EXIT_OK


def rubric_locators(args: argparse.Namespace) -> int:
    from gtreview.app.review import check_rubric_evidence, corpus_index

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
