"""Versioned judge prompt templates shipped in resources/prompts.

Every judgement records the template's name and content hash, so a score can always
be traced to the exact instructions the judge saw. A template's version also names the
reply schema it goes with (``judging/schemas.py``), so changing the schema means a new
template version, and so new content keys. Superseded versions stay in
resources/prompts: the instructions behind stored judgements can still be read.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from pydantic import BaseModel

from gtreview.paths import resources_dir

POINTWISE = "judge_pointwise_v3"
PAIRWISE = "judge_pairwise_v2"


class PromptTemplate(BaseModel):
    name: str
    text: str
    sha256: str


@lru_cache(maxsize=8)
def load_template(name: str) -> PromptTemplate:
    text = (resources_dir() / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    return PromptTemplate(name=name, text=text, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())
