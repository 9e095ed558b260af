"""gtreview: a desktop workstation for source-grounded LLM benchmarks."""

__version__ = "0.1.0"
