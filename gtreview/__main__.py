"""``python -m gtreview`` is the ``gtreview`` command."""

import sys

from gtreview.cli import main

sys.exit(main())
