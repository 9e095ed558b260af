"""Entry point of the frozen app (packaging/gtreview.spec): the ``gtreview`` command.

Two things the console script does not need but a PyInstaller build does:

* ``multiprocessing.freeze_support()`` first: local models run in worker processes
  started with ``spawn`` (gtreview.inference.worker), and in a frozen app a spawned
  child is this same executable with ``--multiprocessing-fork`` arguments. Without the
  call, the child would parse those as gtreview's own command line and die.
* ``GTREVIEW_BUNDLE_CHECK=1`` (or ``=MODEL.gguf``) runs packaging/bundle_check.py
  instead of the app: it checks from inside the bundle what the CLI smoke tests cannot
  reach (every gtreview module imports, llama.cpp's native library loads, a model
  answers in a worker process, PDF fonts, Qt plugins). packaging/build.sh runs it.
* ``GTREVIEW_BUNDLE_SCREENSHOT=OUT.png`` starts the app as usual (``--sample`` when no
  arguments are given), saves its main window to OUT.png after 3 s and quits: what
  the frozen app really draws, for people to look at (build.sh keeps one).
"""

from __future__ import annotations

import multiprocessing
import os
import sys


def main() -> int:
    multiprocessing.freeze_support()  # returns at once unless this is a worker child
    check = os.environ.get("GTREVIEW_BUNDLE_CHECK")
    if check:
        import bundle_check

        return bundle_check.run(None if check == "1" else check)
    screenshot = os.environ.get("GTREVIEW_BUNDLE_SCREENSHOT")
    if screenshot:
        import bundle_check

        return bundle_check.screenshot_gui(screenshot, sys.argv[1:] or ["--sample"])
    from gtreview.cli.main import main as gtreview_main

    return gtreview_main()


if __name__ == "__main__":
    sys.exit(main())
