"""Reviewer signing keys: Ed25519 key pairs kept per user, never inside a project.

A release is signed by the person who publishes it, so the private key belongs to
that person, not to the project folder (which is shared, copied and backed up).
Keys live in the per-user data folder, one ``NAME.key`` (PKCS#8 PEM, mode 0600) and
one ``NAME.pub`` (the raw 32-byte public key in base64, one line) per reviewer; the
public half is what a reader of a bundle pins with ``--public-key``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from platformdirs import user_data_path
from pydantic import BaseModel

from gtreview.core.errors import UserError
from gtreview.files import atomic_path, write_text_atomic

ALGORITHM = "Ed25519"
PRIVATE_SUFFIX = ".key"
PUBLIC_SUFFIX = ".pub"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class SigningKeyError(UserError, ValueError):
    """A key that cannot be created, found or read (one line for the user)."""


class ReviewerKey(BaseModel):
    """What may be shown about a key: never the private bytes."""

    name: str
    public_key: str  # raw 32 bytes, base64
    fingerprint: str
    private_path: Path | None = None
    public_path: Path | None = None


@dataclass(frozen=True)
class SigningKey:
    """A loaded private key and the name it signs as; lives in memory only."""

    name: str
    private_key: Ed25519PrivateKey

    @property
    def public_key(self) -> bytes:
        return raw_public_key(self.private_key.public_key())


def default_key_dir() -> Path:
    return user_data_path("gtreview", appauthor=False) / "keys"


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def strict_b64decode(text: str) -> bytes:
    """Decode base64 that must be in canonical form.

    Plain decoding ignores the unused low bits of the last character, so two texts
    would decode to the same key or signature; a bundle must fail on any changed byte.
    """
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise SigningKeyError("not valid base64") from None
    if b64(raw) != text:
        raise SigningKeyError("not canonical base64")
    return raw


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(raw_public: bytes) -> str:
    """A short, comparable name for a public key (sha256 of its raw bytes, hex)."""
    return hashlib.sha256(raw_public).hexdigest()[:32]


def sign(private_key: Ed25519PrivateKey, data: bytes) -> bytes:
    return private_key.sign(data)


def signature_valid(raw_public: bytes, signature: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(raw_public).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def _check_name(name: str) -> str:
    if not _NAME.match(name):
        raise SigningKeyError(
            f"{name!r} is not a usable key name (letters, digits, '.', '_' and '-', starting with a letter or digit)"
        )
    return name


def _info(
    name: str, private_key: Ed25519PrivateKey, private_path: Path | None, public_path: Path | None
) -> ReviewerKey:
    raw = raw_public_key(private_key.public_key())
    return ReviewerKey(
        name=name, public_key=b64(raw), fingerprint=fingerprint(raw), private_path=private_path, public_path=public_path
    )


def _write_private(path: Path, private_key: Ed25519PrivateKey) -> None:
    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    # Private (0600) from the moment it exists, and written beside the target then renamed:
    # a full disk never leaves a truncated key that no longer loads where a key was asked for.
    with atomic_path(path, mode=0o600) as temporary:
        temporary.write_bytes(pem)


def ensure_reviewer_key(name: str, key_dir: Path | None = None) -> ReviewerKey:
    """The reviewer's key, generated on first use; the private half stays in ``key_dir``."""
    folder = key_dir if key_dir is not None else default_key_dir()
    _check_name(name)
    private_path = folder / f"{name}{PRIVATE_SUFFIX}"
    public_path = folder / f"{name}{PUBLIC_SUFFIX}"
    if private_path.exists():
        private_key = load_private_key_file(private_path)
    else:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        private_key = Ed25519PrivateKey.generate()
        _write_private(private_path, private_key)
    info = _info(name, private_key, private_path, public_path)
    if not public_path.exists() or public_path.read_text(encoding="ascii").strip() != info.public_key:
        write_text_atomic(public_path, info.public_key + "\n")
    return info


def list_reviewer_keys(key_dir: Path | None = None) -> list[ReviewerKey]:
    folder = key_dir if key_dir is not None else default_key_dir()
    if not folder.is_dir():
        return []
    keys = []
    for path in sorted(folder.glob(f"*{PRIVATE_SUFFIX}")):
        keys.append(_info(path.stem, load_private_key_file(path), path, path.with_suffix(PUBLIC_SUFFIX)))
    return keys


def load_private_key_file(path: Path) -> Ed25519PrivateKey:
    """Read a PEM Ed25519 private key, refusing one that other users can read (as ssh does)."""
    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"{path}: {exc.strerror or exc}") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SigningKeyError(f"{path}: the private key is readable by other users; chmod 600 it first")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise SigningKeyError(f"{path}: not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path}: not an Ed25519 key")
    return key


def load_signing_key(name: str, key_dir: Path | None = None) -> SigningKey:
    """A stored reviewer key by name (the private half, for signing)."""
    folder = key_dir if key_dir is not None else default_key_dir()
    path = folder / f"{_check_name(name)}{PRIVATE_SUFFIX}"
    if not path.is_file():
        raise SigningKeyError(f"no reviewer key named {name!r} in {folder} (create one: gtreview keys create NAME)")
    return SigningKey(name, load_private_key_file(path))


def resolve_signing_key(spec: str, key_dir: Path | None = None) -> SigningKey:
    """``--key``: a reviewer key's name, or the path of a private key file (name = file stem)."""
    folder = key_dir if key_dir is not None else default_key_dir()
    if _NAME.match(spec) and (folder / f"{spec}{PRIVATE_SUFFIX}").is_file():
        return SigningKey(spec, load_private_key_file(folder / f"{spec}{PRIVATE_SUFFIX}"))
    path = Path(spec).expanduser()
    if path.is_file():
        return SigningKey(path.stem, load_private_key_file(path))
    raise SigningKeyError(
        f"no key file {spec} and no reviewer key named {spec!r} (create one: gtreview keys create NAME)"
    )


def read_public_key_file(path: Path) -> bytes:
    """A public key to pin: a ``.pub`` file (base64 raw key) or a PEM public key."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"{path}: {exc.strerror or exc}") from None
    if data.lstrip().startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(data)
        except (ValueError, UnsupportedAlgorithm):
            raise SigningKeyError(f"{path}: not a PEM public key") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SigningKeyError(f"{path}: not an Ed25519 public key")
        return raw_public_key(key)
    try:
        raw = strict_b64decode(data.decode("ascii").strip())
    except (SigningKeyError, UnicodeDecodeError):
        raise SigningKeyError(f"{path}: not a base64 Ed25519 public key or a PEM public key") from None
    if len(raw) != 32:
        raise SigningKeyError(f"{path}: an Ed25519 public key is 32 bytes, this one is {len(raw)}")
    return raw
