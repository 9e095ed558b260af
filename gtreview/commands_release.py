"""CLI commands for publishing: reviewer keys, signed release bundles, run exports.

``release verify`` exits 0 for a valid bundle, 1 for an invalid one (each problem
names the file) and 2 when the bundle cannot be read at all, so a script can tell
"tampered" from "wrong path".
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gtreview.cli import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, CliError, print_json

if TYPE_CHECKING:
    from gtreview.core.rubric import Rubric
    from gtreview.report.exports import RunData


def _key_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--key-dir", type=Path, default=None, help="folder of reviewer keys (default: one in the per-user data folder)"
    )


def _project(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", type=Path, default=None, help="project folder")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def add_release_commands(commands: Any) -> None:
    release = commands.add_parser("release", help="create and verify signed release bundles").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    create = release.add_parser("create", help="write a signed bundle of a signed-off set")
    create.add_argument("--set", dest="set_id", type=int, required=True, help="set id")
    create.add_argument("--signoff", type=int, default=None, metavar="N", help="sign-off number (default: latest)")
    create.add_argument("--key", required=True, help="reviewer key name, or a private key file")
    create.add_argument("-o", "--output", type=Path, required=True, help="bundle folder (new or empty)")
    _key_dir(create)
    _project(create)
    verify = release.add_parser("verify", help="check a bundle's signature, hashes and contents")
    verify.add_argument("bundle", type=Path)
    verify.add_argument("--public-key", type=Path, default=None, help="require this signer (.pub or PEM file)")
    verify.add_argument("--json", action="store_true")

    keys = commands.add_parser("keys", help="reviewer signing keys (kept per user)").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    kcreate = keys.add_parser("create", help="create a reviewer key (or show the existing one)")
    kcreate.add_argument("name")
    _key_dir(kcreate)
    kcreate.add_argument("--json", action="store_true")
    klist = keys.add_parser("list", help="list reviewer keys")
    _key_dir(klist)
    klist.add_argument("--json", action="store_true")

    export = commands.add_parser("export", help="export a run's results").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    board = export.add_parser("leaderboard", help="scores.json and meta.json of one model, for a leaderboard")
    board.add_argument("--run", dest="run_id", type=int, required=True)
    board.add_argument("--model", required=True, metavar="LABEL")
    board.add_argument("-o", "--output", type=Path, required=True, help="output folder")
    board.add_argument("--contact", default="", help="contact_or_repo for meta.json")
    board.add_argument("--rubric-key", default=None, help="rubric_key for meta.json (default: the set's file name)")
    board.add_argument("--model-id", default=None, help="candidate_model_id for meta.json (default: LABEL)")
    board.add_argument("--rubric", type=Path, default=None, help="rubric for question texts (runs without a set)")
    _project(board)
    table = export.add_parser("csv", help="per-question results of every model, as CSV")
    table.add_argument("--run", dest="run_id", type=int, required=True)
    table.add_argument("-o", "--output", type=Path, required=True, help="CSV file")
    table.add_argument("--base", default=None, metavar="LABEL", help="model to compare with (default: the run's base)")
    table.add_argument("--rubric", type=Path, default=None, help="rubric for question order (runs without a set)")
    _project(table)


def keys_create(args: argparse.Namespace) -> int:
    from gtreview.report.signing import SigningKeyError, ensure_reviewer_key

    try:
        key = ensure_reviewer_key(args.name, args.key_dir)
    except SigningKeyError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print_json({"ok": True, **key.model_dump(mode="json")})
    else:
        print(f"{key.name}  {key.fingerprint}  public key {key.public_key}")
        print(f"private key {key.private_path} (keep it; never share it), public key file {key.public_path}")
    return EXIT_OK


def keys_list(args: argparse.Namespace) -> int:
    from gtreview.report.signing import SigningKeyError, list_reviewer_keys

    try:
        keys = list_reviewer_keys(args.key_dir)
    except SigningKeyError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print_json([key.model_dump(mode="json") for key in keys])
    else:
        for key in keys:
            print(f"{key.name}  {key.fingerprint}  {key.public_key}")
        if not keys:
            print("no reviewer keys yet (gtreview keys create NAME)")
    return EXIT_OK


def release_create(args: argparse.Namespace) -> int:
    from gtreview.commands import open_cli_project
    from gtreview.report.release import ReleaseError, create_release
    from gtreview.report.signing import SigningKeyError, resolve_signing_key

    try:
        key = resolve_signing_key(args.key, args.key_dir)
    except SigningKeyError as exc:
        raise CliError(str(exc)) from None
    project = open_cli_project(args)
    try:
        info = create_release(
            project.engine, args.set_id, signoff_number=args.signoff, reviewer_key=key, out_dir=args.output
        )
    except ReleaseError as exc:
        raise CliError(str(exc)) from None
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, **info.model_dump(mode="json")})
    else:
        print(
            f"wrote {info.folder}: {info.set_name}, sign-off {info.signoff_number}, {info.question_count} questions, "
            f"signed by {info.signer} ({info.fingerprint})"
        )
    return EXIT_OK


def release_verify(args: argparse.Namespace) -> int:
    from gtreview.report.release import verify_release
    from gtreview.report.signing import SigningKeyError, read_public_key_file

    pinned = None
    if args.public_key is not None:
        try:
            pinned = read_public_key_file(args.public_key)
        except SigningKeyError as exc:
            raise CliError(str(exc)) from None
    report = verify_release(args.bundle, public_key=pinned)
    status = EXIT_OK if report.ok else (EXIT_FINDINGS if report.readable else EXIT_USAGE)
    if args.json:
        print_json({**report.model_dump(mode="json"), "changed_files": sorted(report.changed_files)})
        return status
    if not report.readable:
        raise CliError(f"{args.bundle}: {report.problems[0].detail}", EXIT_USAGE)
    for problem in report.problems:
        print(f"INVALID  {problem.one_line()}")
    for warning in report.warnings:
        print(f"note     {warning}")
    who = f"signed by {report.signer} ({report.fingerprint})" if report.signer else "unsigned"
    verdict = "valid" if report.ok else f"INVALID ({len(report.problems)} problems)"
    print(f"{args.bundle}: {verdict}; {report.set_name}, sign-off {report.signoff_number}, {who}")
    return status


def _load(args: argparse.Namespace) -> RunData:
    from gtreview.commands import open_cli_project
    from gtreview.report.exports import ExportError, load_run

    rubric = _rubric(args.rubric) if args.rubric is not None else None
    project = open_cli_project(args)
    try:
        return load_run(project.engine, args.run_id, rubric=rubric)
    except ExportError as exc:
        raise CliError(str(exc)) from None
    finally:
        project.close()


def _rubric(path: Path) -> Rubric:
    from gtreview.core.rubric_text import RubricReadError
    from gtreview.services.rubric_files import read_rubric_file, to_rubric

    try:
        return to_rubric(read_rubric_file(path))
    except RubricReadError as exc:
        raise CliError(f"{path}: {exc}") from None


def export_leaderboard(args: argparse.Namespace) -> int:
    from gtreview.report.exports import ExportError, leaderboard_submission, write_leaderboard

    data = _load(args)
    try:
        export = leaderboard_submission(
            data, args.model, rubric_key=args.rubric_key, candidate_model_id=args.model_id, contact=args.contact
        )
    except ExportError as exc:
        raise CliError(str(exc)) from None
    paths = write_leaderboard(export, args.output)
    if args.json:
        print_json(
            {
                "ok": True,
                "files": [str(p) for p in paths],
                "questions": len(export.scores),
                "unscored": export.unscored,
                "meta": export.meta,
                "warnings": export.warnings,
            }
        )
    else:
        for warning in export.warnings:
            print(f"note: {warning}")
        print(f"wrote {paths[0]} ({len(export.scores)} questions) and {paths[1]}")
        if export.unscored:
            print(f"left out, never scored: {', '.join(export.unscored)}")
    return EXIT_OK


def export_csv(args: argparse.Namespace) -> int:
    from gtreview.report.exports import question_results, write_results_csv

    data = _load(args)
    rows = question_results(data, base=args.base)
    path = write_results_csv(rows, args.output)
    if args.json:
        print_json({"ok": True, "file": str(path), "rows": len(rows), "warnings": data.warnings})
    else:
        print(f"wrote {path} ({len(rows)} rows)")
    return EXIT_OK


# (command, action) -> handler, for gtreview.cli's dispatch table.
HANDLERS = {
    ("release", "create"): release_create,
    ("release", "verify"): release_verify,
    ("keys", "create"): keys_create,
    ("keys", "list"): keys_list,
    ("export", "leaderboard"): export_leaderboard,
    ("export", "csv"): export_csv,
}
