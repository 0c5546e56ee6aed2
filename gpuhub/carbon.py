"""Deprecated path: moved to :mod:`gpuhub.facts.carbon` (this alias warns; it goes away in gpuhub 0.2)."""

from gpuhub._moved import moved

moved(__name__)
