"""A mapping whose values are made when first asked for: a fixture of every example that the fast set reads only
in part (the small example) builds only that part."""

from __future__ import annotations

from typing import Callable, Iterable


class PerKey(dict):
    """key → ``make(key)``, made on first access and kept; ``every()`` makes and returns all of ``keys``."""

    def __init__(self, make: Callable, keys: Iterable[str]):
        super().__init__()
        self.make = make
        self.keys_all = list(keys)

    def __missing__(self, key: str):
        value = self[key] = self.make(key)
        return value

    def every(self) -> dict:
        return {k: self[k] for k in self.keys_all}
