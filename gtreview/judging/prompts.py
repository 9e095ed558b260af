"""Versioned judge prompt templates shipped in resources/prompts.

Every judgement records the template's name and content hash, so a score can always
be traced to the exact instructions the judge saw.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from pydantic import BaseModel

from gtreview.paths import resources_dir

POINTWISE = "judge_pointwise_v1"
PAIRWISE = "judge_pairwise_v1"


class PromptTemplate(BaseModel):
    name: str
    text: str
    sha256: str


@lru_cache(maxsize=8)
def load_template(name: str) -> PromptTemplate:
    text = (resources_dir() / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    return PromptTemplate(name=name, text=text, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())
