"""``python -m gtreview.cli`` is the ``gtreview`` command."""

import sys

from gtreview.cli.main import main

sys.exit(main())
