"""An in-memory keyring for tests (this machine has no keyring backend), and one that
cannot keep anything, as on a system without one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import keyring
from keyring.backend import KeyringBackend
from keyring.backends import fail

K = TypeVar("K", bound=KeyringBackend)


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@contextmanager
def keyring_in_use(backend: K) -> Iterator[K]:
    """``backend`` as the process's keyring while the block runs."""
    before = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(before)


def no_keyring() -> KeyringBackend:
    """What keyring picks on a system without a backend: it refuses every call."""
    return fail.Keyring()  # type: ignore[no-untyped-call]
