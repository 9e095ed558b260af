"""URL passwords of model specs, kept in the OS keyring and never in a project.

A spec such as ``openai:http://lab:PASSWORD@host/v1#model`` names a server that wants
basic auth. What a project keeps of it (the judge setting, the last pass asked for) is the
spec with the password masked, ``lab:***@``; the password itself goes to the keyring,
under the masked spec's server URL (every model on one server shares its password). When
a masked spec is opened (:func:`gtreview.inference.factory.open_backend`, whoever asks)
the password is put back from the keyring, and the backend registers it for redaction
as it does for one typed in full.

Without a keyring backend nothing is kept: a password that cannot be kept is refused in
one line that says to give the server a key in the environment instead, and a masked
spec whose password is not in the keyring is refused in one line that says to type it
again.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from gtreview.core.errors import UserError
from gtreview.core.redaction import masked_url_password, split_url_password, with_url_password

log = logging.getLogger(__name__)

KEYRING_SERVICE = "gtreview"  # the service the Anthropic key is kept under, too
KEY_ENV = "GTREVIEW_OPENAI_API_KEY"  # the environment's way to give a server its key


class PasswordNotKept(UserError):
    """A URL password that this system has no keyring to keep (nothing was written)."""


class PasswordNotFound(UserError):
    """A masked spec whose password is not in this system's keyring."""


def _account(masked_spec: str) -> str:
    """The keyring entry of a masked spec: its server URL, the ``#MODEL`` left out."""
    server, sep, _model = masked_spec.rpartition("#")
    return f"url:{server if sep else masked_spec}"


def _keyring() -> Any | None:
    try:
        return importlib.import_module("keyring")
    except ImportError:
        return None


def keep_spec(spec: str) -> str:
    """The spec a project may keep: its URL password (if any) stored in the keyring and
    masked in what is returned. A spec without one, or already masked, comes back as is.
    Raise PasswordNotKept, in one line, when the keyring cannot keep the password."""
    masked, password = split_url_password(spec)
    if password is None:
        return spec
    keyring = _keyring()
    try:
        if keyring is None:
            raise RuntimeError("the keyring package is not installed")
        keyring.set_password(KEYRING_SERVICE, _account(masked), password)
        kept = keyring.get_password(KEYRING_SERVICE, _account(masked)) == password  # a null backend drops it
    except Exception:  # every keyring backend fails its own way; all mean "cannot keep it"
        log.debug("keyring could not keep a URL password", exc_info=True)
        kept = False
    if not kept:
        raise PasswordNotKept(
            f"this system has no keyring to keep the password of {masked}, and a project never keeps "
            f"passwords: leave it out of the URL and give the server its key in {KEY_ENV}"
        )
    return masked


def with_kept_password(spec: str) -> str:
    """``spec`` with a masked URL password put back from the keyring; any other spec as is.
    Raise PasswordNotFound, in one line, when the keyring does not have it."""
    if not masked_url_password(spec):
        return spec
    keyring = _keyring()
    try:
        password = keyring.get_password(KEYRING_SERVICE, _account(spec)) if keyring is not None else None
    except Exception:  # as above: no keyring, no password
        log.debug("keyring lookup of a URL password failed", exc_info=True)
        password = None
    if not isinstance(password, str) or not password:
        raise PasswordNotFound(
            f"the password of {spec} is not in this system's keyring: type the spec again with its password "
            "(it is kept in the keyring, never in the project)"
        )
    return with_url_password(spec, password)


__all__ = ["KEYRING_SERVICE", "PasswordNotFound", "PasswordNotKept", "keep_spec", "with_kept_password"]
