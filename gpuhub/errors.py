"""The exceptions gpuhub raises. Every message names what went wrong and, where it can, how to fix it."""

from __future__ import annotations

__all__ = [
    "CredentialsError",
    "GpuhubError",
    "PluginError",
    "ProviderError",
    "QueryError",
    "ReplayMissError",
    "missing_extra",
]


class GpuhubError(Exception):
    """Base class of gpuhub's own errors."""


class QueryError(GpuhubError, ValueError):
    """A search argument is invalid; the message names the argument and the allowed values."""

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        self.detail = message
        super().__init__(f"{argument}: {message}")


class ProviderError(GpuhubError):
    """A provider could not deliver its offers; ``code`` is the provider's own error code when it sent one."""

    def __init__(self, message: str, *, code: str | None = None, retryable: bool = False,
                 status: int | None = None, body: str | None = None) -> None:
        self.code = code
        self.retryable = retryable
        self.status = status
        self.body = body
        """The error response's body (text, at most 64 KiB) when the failure was an HTTP answer."""
        super().__init__(message)


class CredentialsError(ProviderError):
    """Credentials are missing or were rejected; the message says how to configure them."""


class ReplayMissError(ProviderError):
    """Replay mode got a request that has no recording; the message names the request and the recording."""


class PluginError(GpuhubError):
    """A plugin failed to load (raised only in strict mode; otherwise reported by ``gpuhub plugins``)."""


def missing_extra(command: str, extra: str, exc: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error of a command whose optional part is not installed: it names the missing module and the
    ``pip install 'gpuhub-core[extra]'`` that adds it (raise it ``from exc``)."""
    return ModuleNotFoundError(f"{command} needs the {extra} extra ({exc.name} is missing): "
                               f"pip install 'gpuhub-core[{extra}]'")
