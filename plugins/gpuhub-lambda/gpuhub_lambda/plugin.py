"""gpuhub hook implementations of gpuhub-lambda (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

import gpuhub
from gpuhub import Provider
from gpuhub_lambda.provider import LambdaProvider


@gpuhub.hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Lambda Cloud provider (name ``lambda``)."""
    register(LambdaProvider())
