"""Who runs the machine: one name per seller, whatever an aggregator calls it.

An aggregator (Shadeform, Prime Intellect) resells other clouds' machines and names each one's cloud in its own
spelling (``lambdalabs``, ``datacrunch``, ``crusoecloud``). :func:`seller_name` turns those spellings into one name
per seller, the gpuhub provider name where there is a plugin for it (``lambda``, ``verda``, ``crusoe``), so that
the same seller's machine arriving directly and through an aggregator is recognised as one seller's
(:attr:`gpuhub.model.Instance.seller`). The aliases come from the aggregators' catalogs
(``skypilot-catalog/shadeform/vms.csv`` instance-type prefixes, ``skypilot-catalog/primeintellect/vms.csv``
prefixes) and from the sellers' own renames (DataCrunch became Verda).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["known_sellers", "seller_name"]

SELLERS: dict[str, tuple[str, ...]] = {
    "boostrun": (),
    "crusoe": ("crusoecloud", "crusoe cloud"),
    "cudo": ("cudocompute", "cudo compute"),
    "denvr": ("denvrdataworks", "denvr dataworks"),
    "digitalocean": ("digital ocean",),
    "evergreen": (),
    "horizon": (),
    "hyperstack": (),
    "imwt": (),
    "lambda": ("lambdalabs", "lambda labs", "lambda cloud"),
    "latitude": ("latitudesh", "latitude.sh"),
    "massedcompute": ("massed compute", "massed-compute"),
    "nebius": (),
    "oblivus": (),
    "paperspace": (),
    "primecompute": (),
    "scaleway": (),
    "sesterce": (),
    "verda": ("datacrunch", "data crunch", "data-crunch"),
    "voltagepark": ("voltage park", "voltage-park"),
    "vultr": (),
}
"""Canonical seller name -> other spellings aggregators use. Names are lower case, the gpuhub provider name
where one exists."""


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


_LOOKUP: dict[str, str] = {_key(alias): name for name, aliases in SELLERS.items() for alias in (name, *aliases)}


@lru_cache(maxsize=1024)  # every stored instance of an aggregator names its seller: a few dozen spellings
def seller_name(raw: str) -> str:
    """The canonical seller name for an aggregator's spelling (``"lambdalabs"`` -> ``"lambda"``,
    ``"DataCrunch"`` -> ``"verda"``); a spelling not in the table is kept, lower-cased with its spaces as ``-``
    (visible, never guessed).

    Raises:
        ValueError: ``raw`` is empty or blank.
    """
    text = raw.strip()
    if not text:
        raise ValueError("an empty seller name")
    return _LOOKUP.get(_key(text), re.sub(r"\s+", "-", text.lower()))


def known_sellers() -> list[str]:
    """Every canonical seller name of the table, sorted."""
    return sorted(SELLERS)
