"""``gtreview rubric validate|import|export|locators``: Groundtruth rubric files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    ID,
    actor,
    add_json,
    add_output_file,
    add_project,
    open_cli_project,
    print_json,
)

# The application modules are imported inside the commands, so that `rubric validate`
# (which needs no project) starts without loading SQLAlchemy.
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
    imp.add_argument(
        "--as-new", action="store_true", help="import a second copy even if the file is already in the project"
    )
    add_json(imp)
    add_project(imp)
    imp.set_defaults(handler=rubric_import)
    exp = rubric.add_parser("export", help="export a benchmark set")
    exp.add_argument("--set", dest="set_id", type=ID, default=None, help="set id (default: the only set)")
    exp.add_argument("--format", type=str, choices=("json", "md"), default="json")
    add_output_file(exp, "-o", "--output", required=True, help="the rubric file (json) or grading guide (md) to write")
    exp.add_argument(
        "--include-retired", action="store_true", help="keep the retired questions (as drafts, to the file)"
    )
    add_project(exp)
    exp.set_defaults(handler=rubric_export)
    loc = rubric.add_parser("locators", help="resolve a rubric's evidence locators against the project corpus")
    loc.add_argument("file", type=Path)
    add_json(loc)
    add_project(loc)
    loc.set_defaults(handler=rubric_locators)


def rubric_validate(args: argparse.Namespace) -> int:
    from gtreview.app.rubric_files import validate_rubric_file

    report = validate_rubric_file(args.file)
    if args.json:
        print_json(
            {
                "ok": report.ok,
                "file": str(args.file),
                "questions": report.questions,
                "errors": report.errors,
                "warnings": report.warnings,
                "findings": [f.model_dump(mode="json") for f in report.findings],
            }
        )
    else:
        for finding in report.findings:
            print(f"{args.file}: {finding.one_line()}")
        print(f"{args.file}: {report.questions} questions, {report.errors} errors, {report.warnings} warnings")
    return EXIT_OK if report.ok else EXIT_FINDINGS


def rubric_import(args: argparse.Namespace) -> int:
    from gtreview.app.rubric_files import read_rubric_source
    from gtreview.app.rubrics import import_rubric

    source = read_rubric_source(args.file)  # before the project: a bad file leaves none behind
    project = open_cli_project(args)
    try:
        imported = import_rubric(project.engine, source, actor=actor(), as_new=args.as_new)
    finally:
        project.close()
    locators = imported.locators
    if args.json:
        print_json(
            {
                "ok": True,
                "set_id": imported.set_id,
                "already_in_project": imported.already_in_project,
                "questions": imported.questions,
                "errors": imported.errors,
                "warnings": imported.warnings,
                "locators": len(locators.checks),
                "unresolved_locators": [_check_json(c) for c in locators.unresolved],
            }
        )
    elif imported.already_in_project:
        print(
            f"{args.file.name} is already in the project as set {imported.set_id} ({imported.set_name}); "
            "nothing was added (--as-new imports a second copy)"
        )
        return EXIT_OK
    else:
        print(f"imported {imported.questions} questions as set {imported.set_id} ({imported.findings_text()})")
        print(f"{locators.resolved} of {len(locators.checks)} evidence locators resolve in the project corpus")
        for check in locators.unresolved:
            print(f"  unresolved {check.question_id} evidence[{check.position}]: {check.resolution.reason}")
    return EXIT_OK


def _check_json(check: EvidenceCheck) -> dict[str, object]:
    return {"question_id": check.question_id, "evidence": check.position, **check.resolution.model_dump(mode="json")}


def rubric_export(args: argparse.Namespace) -> int:
    from gtreview.app.rubrics import export_set

    project = open_cli_project(args)
    try:
        exported = export_set(
            project.engine, args.output, set_id=args.set_id, format=args.format, include_retired=args.include_retired
        )
    finally:
        project.close()
    retired = exported.retired_left_out
    left_out = f" ({len(retired)} retired questions left out: {', '.join(retired)})" if retired else ""
    print(f"wrote {exported.path}{left_out}")
    return EXIT_OK


def rubric_locators(args: argparse.Namespace) -> int:
    from gtreview.app.rubric_files import read_rubric
    from gtreview.app.rubrics import check_locators

    rubric = read_rubric(args.file)
    project = open_cli_project(args)
    try:
        report = check_locators(project.engine, rubric)
    finally:
        project.close()
    unresolved = report.unresolved
    if args.json:
        print_json(
            {
                "ok": not unresolved,
                "resolved": report.resolved,
                "unresolved": len(unresolved),
                "locators": [_check_json(c) for c in report.checks],
            }
        )
    else:
        for check in report.checks:
            res = check.resolution
            where = f"{check.question_id} evidence[{check.position}]: {res.source} | {res.locator}"
            print(f"ok          {where}" if res.resolved else f"UNRESOLVED  {where}: {res.reason}")
        print(f"{report.resolved} of {len(report.checks)} locators resolve")
    return EXIT_FINDINGS if unresolved else EXIT_OK
