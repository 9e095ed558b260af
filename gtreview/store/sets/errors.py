"""What the store refuses about a set: each a one-line message, nothing written."""

from __future__ import annotations

from typing import Any

from gtreview.core.errors import UserError
from gtreview.core.review_flow import Refusal


class SetImportError(UserError, ValueError):
    """A rubric that cannot become a set (one-line message)."""


class SetAlreadyImportedError(UserError, ValueError):
    """The same file (same sha256) is already a set of the project; nothing was added."""

    def __init__(self, set_id: int, name: str, source_name: str) -> None:
        self.set_id = set_id
        super().__init__(
            f"{source_name} is already in the project as set {set_id} ({name}); nothing was added "
            "(import it as a new copy to get a second set)"
        )


class QuestionIdTakenError(UserError, ValueError):
    """A rename to an id the set already has; nothing was written."""


class EditConflictError(UserError, ValueError):
    """An edit made on a version that is no longer the current one: refused, nothing written.

    Saving it would silently undo the newer version's changes, so it is refused; the
    edit's content travels with the error so the caller can give it back to the editor.
    """

    def __init__(self, qid: str, base_version: int, current_version: int, author: str, content: dict[str, Any]):
        self.qid, self.base_version, self.current_version = qid, base_version, current_version
        self.author, self.content = author, content
        super().__init__(
            f"{qid} was changed by {author or 'someone else'} (now version {current_version}) after "
            f"version {base_version} you edited; your edit was not saved"
        )


class ReviewConflictError(UserError, ValueError):
    """A review decision about a version that is no longer the current one: not recorded."""

    def __init__(self, qid: str, version: int, current_version: int, author: str, action: str) -> None:
        self.qid, self.version, self.current_version = qid, version, current_version
        super().__init__(
            f"{qid} was changed by {author or 'someone else'} (now version {current_version}) after "
            f"version {version} was reviewed; not {action}: review the newer version"
        )


class EditRefusedError(UserError, ValueError):
    """An edit the review rules refuse (a retired question is not edited): nothing written."""

    def __init__(self, refusal: Refusal) -> None:
        self.refusal = refusal
        super().__init__(refusal.message)


class DamagedVersionError(UserError):
    """A stored question version whose content no longer matches its content hash (a
    flipped bit on disk, a hand edit). ``PRAGMA integrity_check`` cannot see it; exported,
    signed off or reported, the damaged text would pass for what the expert approved."""


class NoSuchSignoff(UserError):
    """A sign-off number the set does not have."""
