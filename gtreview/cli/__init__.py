"""The ``gtreview`` command line: ``main`` builds the parser from the command groups.

Importing this package imports nothing else; ``gtreview.cli.main.main`` is the entry
point and ``python -m gtreview.cli`` runs it.
"""
