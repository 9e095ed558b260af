"""Reading, validating, importing and exporting rubric files."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from gtreview.core.findings import Finding
from gtreview.core.rubric import Rubric
from gtreview.core.rubric_text import MAX_RUBRIC_BYTES, RubricReadError, parse_rubric_bytes
from gtreview.core.validation import validate_rubric
from gtreview.core.wording import plural
from gtreview.inputs import InputReadError, read_limited


@dataclass(frozen=True)
class RubricFile:
    path: Path
    sha256: str
    data: dict[str, object]
    findings: list[Finding]
    text: str = ""  # the file as read (a byte-order mark kept), for an export in its layout


def read_rubric_file(path: Path) -> RubricFile:
    """Read and validate ``path``; raise RubricReadError when it cannot be read at all."""
    try:
        raw = read_limited(path, MAX_RUBRIC_BYTES)
    except InputReadError as exc:
        raise RubricReadError(exc.reason) from None
    data = parse_rubric_bytes(raw)
    return RubricFile(
        path=path,
        sha256=hashlib.sha256(raw).hexdigest(),
        data=data,
        findings=validate_rubric(data),
        text=raw.decode("utf-8"),
    )


def to_rubric(rubric_file: RubricFile) -> Rubric:
    """The typed rubric; refuse (one line) when field types are too broken to model."""
    try:
        return Rubric.model_validate(rubric_file.data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        raise RubricReadError(
            f"cannot load: {where}: {first['msg']} ({plural(exc.error_count(), 'type problem')}; run 'gtreview rubric validate')"
        ) from None
