"""gpuhub hook implementations of gpuhub-lambda (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_lambda.provider import LambdaProvider


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Lambda Cloud provider (name ``lambda``)."""
    register(LambdaProvider())
