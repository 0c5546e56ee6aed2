"""The version of gpuhub-core (one place; ``gpuhub.__version__`` re-exports it)."""

__version__ = "0.1.0"
