"""Use cases shared by the CLI and the GUI: each one a function over a project."""
