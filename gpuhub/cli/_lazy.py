"""A name whose module is imported on first use (keeps ``gpuhub --version`` / ``--help`` from importing numpy,
pydantic, httpx and rich)."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["lazy"]


class _Lazy:
    def __init__(self, module: str, name: str, kwargs: dict[str, Any] | None = None) -> None:
        self._module, self._name, self._kwargs = module, name, kwargs
        self._value: Any = None

    def _get(self) -> Any:
        if self._value is None:
            value = getattr(importlib.import_module(self._module), self._name)
            self._value = value(**self._kwargs) if self._kwargs is not None else value
        return self._value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._get()(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._get(), attr)


def lazy(module: str, name: str, **instance_kwargs: Any) -> Any:
    """``module.name`` imported on first call or attribute access; with keyword arguments, the instance
    ``module.name(**kwargs)`` made on first use (e.g. a console)."""
    return _Lazy(module, name, instance_kwargs or None)
