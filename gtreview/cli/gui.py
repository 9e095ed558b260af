"""``gtreview gui`` (the default command): open the app."""

from __future__ import annotations

import argparse

from gtreview.cli.common import add_project


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gui = commands.add_parser("gui", help="open the app (the default command)")
    add_project(gui)
    gui.add_argument("--sample", action="store_true", help="open the sample project")
    gui.set_defaults(handler=run_gui)


def run_gui(args: argparse.Namespace) -> int:
    from gtreview.ui.app import run_app

    return run_app(project=args.project, sample=args.sample)
