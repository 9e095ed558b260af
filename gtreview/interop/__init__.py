"""The Groundtruth formats in one place: rubric files, grading guide, harness files."""
