"""``gtreview release create|verify`` and ``gtreview keys create|list|trust``: signed releases.

``release verify`` exits 0 for a valid bundle signed by a trusted key, 1 for an
invalid or untrusted one (each problem names the file) and 2 when the bundle cannot
be read at all, so a script can tell "tampered" from "wrong path".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gtreview.cli.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    ID,
    CliError,
    add_json,
    add_project,
    open_cli_project,
    print_json,
)
from gtreview.core.wording import plural


def add_key_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--key-dir", type=Path, default=None, help="folder of reviewer keys (default: one in the per-user data folder)"
    )


def add_trusted_keys(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trusted-keys",
        type=Path,
        default=None,
        metavar="FILE",
        help="trusted-keys file (default: trusted_keys.txt in the per-user config folder)",
    )


def add_project_trust(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--project", dest="trust_project", type=Path, default=None, metavar="DIR", help=what)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    release = commands.add_parser("release", help="create and verify signed release bundles").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    create = release.add_parser("create", help="write a signed bundle of a signed-off set")
    create.add_argument("--set", dest="set_id", type=ID, required=True, help="set id")
    create.add_argument("--signoff", type=ID, default=None, metavar="N", help="sign-off number (default: latest)")
    create.add_argument("--key", type=str, required=True, help="reviewer key name, or a private key file")
    create.add_argument("-o", "--output", type=Path, required=True, help="bundle folder (new or empty)")
    add_key_dir(create)
    add_project(create)
    add_json(create)
    create.set_defaults(handler=release_create)
    verify = release.add_parser("verify", help="check a bundle's signature, hashes and contents")
    verify.add_argument("bundle", type=Path)
    verify.add_argument("--public-key", type=Path, default=None, help="require this signer (.pub or PEM file)")
    add_key_dir(verify)
    add_trusted_keys(verify)
    add_project_trust(verify, "also trust the keys this project trusts (every key that signed one of its releases)")
    add_json(verify)
    verify.set_defaults(handler=release_verify)

    keys = commands.add_parser("keys", help="reviewer signing keys (kept per user)").add_subparsers(
        dest="action", metavar="ACTION", required=True
    )
    kcreate = keys.add_parser("create", help="create a reviewer key (or show the existing one)")
    kcreate.add_argument("name", type=str)
    add_key_dir(kcreate)
    add_json(kcreate)
    kcreate.set_defaults(handler=keys_create)
    klist = keys.add_parser("list", help="list reviewer keys")
    add_key_dir(klist)
    add_json(klist)
    klist.set_defaults(handler=keys_list)
    ktrust = keys.add_parser("trust", help="trust a reviewer's public key for release verify")
    ktrust.add_argument("public_key", type=Path, metavar="KEY.pub", help="the reviewer's .pub or PEM public key")
    ktrust.add_argument("--name", type=str, required=True, help="whose key it is (shown when a bundle verifies)")
    add_trusted_keys(ktrust)
    add_project_trust(ktrust, "trust the key for everyone who has this project, not only for you")
    add_json(ktrust)
    ktrust.set_defaults(handler=keys_trust)


def keys_create(args: argparse.Namespace) -> int:
    from gtreview.app.releases import create_reviewer_key

    key = create_reviewer_key(args.name, args.key_dir)
    if args.json:
        print_json({"ok": True, **key.model_dump(mode="json")})
    else:
        print(f"{key.name}  {key.fingerprint}  public key {key.public_key}")
        print(f"private key {key.private_path} (keep it; never share it), public key file {key.public_path}")
    return EXIT_OK


def keys_list(args: argparse.Namespace) -> int:
    from gtreview.app.releases import reviewer_keys

    keys = reviewer_keys(args.key_dir)
    if args.json:
        print_json([key.model_dump(mode="json") for key in keys])
    else:
        for key in keys:
            print(f"{key.name}  {key.fingerprint}  {key.public_key}")
        if not keys:
            print("no reviewer keys yet (gtreview keys create NAME)")
    return EXIT_OK


def keys_trust(args: argparse.Namespace) -> int:
    from gtreview.app.releases import trust_public_key

    if args.trust_project is not None:
        open_cli_project(argparse.Namespace(project=args.trust_project)).close()  # a project, or one line why not
    trusted = trust_public_key(args.public_key, args.name, args.trusted_keys, args.trust_project)
    if args.json:
        print_json({"ok": True, **trusted.model_dump(mode="json")})
    else:
        print(f"trusted {trusted.name}  {trusted.fingerprint}  (in {trusted.file})")
    return EXIT_OK


def release_create(args: argparse.Namespace) -> int:
    from gtreview.app.releases import create_release_bundle

    project = open_cli_project(args)
    try:
        info = create_release_bundle(
            project.engine,
            args.set_id,
            key=args.key,
            out_dir=args.output,
            signoff=args.signoff,
            key_dir=args.key_dir,
            project_folder=project.folder,
        )
    finally:
        project.close()
    if args.json:
        print_json({"ok": True, **info.model_dump(mode="json")})
    else:
        print(
            f"wrote {info.folder}: {info.set_name}, sign-off {info.signoff_number}, {info.question_count} questions, "
            f"signed by {info.signer} ({info.fingerprint})"
        )
        if info.approved_without_calibration:
            print(
                f"note     approved without a calibration requirement: {', '.join(info.approved_without_calibration)}"
            )
    return EXIT_OK


def release_verify(args: argparse.Namespace) -> int:
    from gtreview.app.releases import verify_release_bundle

    if args.trust_project is not None:
        open_cli_project(argparse.Namespace(project=args.trust_project)).close()  # a project, or one line why not
    report = verify_release_bundle(
        args.bundle,
        public_key_file=args.public_key,
        key_dir=args.key_dir,
        trusted_keys_file=args.trusted_keys,
        project_folder=args.trust_project,
    )
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
    if report.trusted_as:
        who += f", a key trusted as {report.trusted_as}"
    verdict = "valid" if report.ok else f"INVALID ({plural(len(report.problems), 'problem')})"
    print(f"{args.bundle}: {verdict}; {report.set_name}, sign-off {report.signoff_number}, {who}")
    return status
