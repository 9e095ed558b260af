"""A run's results: the one results loader (settled scores applied), its analysis, the
rows every table shows and the run's figures as one value.

Every figure anywhere (results view, status line, Runs view counts, CSV, leaderboard,
PDF, ``gtreview results --json``, the adjudication queue) is computed from
``load_run_results``.
"""

from gtreview.results.loader import PairResult, RunResults, SampleResult, SampleStatus, load_run_results

__all__ = ["PairResult", "RunResults", "SampleResult", "SampleStatus", "load_run_results"]
