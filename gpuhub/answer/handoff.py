"""Launch hand-offs: the chosen offer as a ready SkyPilot task or dstack configuration file (``--emit``).

gpuhub picks the offer; SkyPilot and dstack launch it. The file pins what gpuhub chose (provider, region and zone,
instance type, GPUs, spot or not, the price as a ceiling) so the launcher starts that machine, not a different one.

Which providers each tool launches on comes from the tools themselves (SkyPilot 0.14: the clouds of the ``infra``
pattern in ``sky/utils/schemas.py``; dstack 0.22: its ``BackendType`` values); gpuhub's provider names map onto
theirs in :data:`SKYPILOT_CLOUDS` and :data:`DSTACK_BACKENDS`. An offer from any other provider is refused with the
list of those that are supported (:class:`HandoffError`).

- SkyPilot task YAML: ``resources`` with ``infra`` (``cloud/region[/zone]``), ``instance_type``,
  ``accelerators`` (``H100:8``, the GPU table's canonical name, the one SkyPilot's catalogs use for the common GPUs;
  left out for a fractional GPU) and ``use_spot``; a ``run`` command to replace.
- dstack configuration (``type: task`` or ``type: fleet``): ``backends``, ``regions``, ``availability_zones``,
  ``instance_types``, ``spot_policy`` (``spot`` / ``on-demand``), ``max_price`` (USD per hour: the offer's price,
  only for a price in USD) and ``resources.gpu`` (``H100:80GB:8``).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from gpuhub.model import Offer

__all__ = ["DSTACK_BACKENDS", "FORMATS", "SKYPILOT_CLOUDS", "HandoffError", "default_file", "handoff",
           "handoff_text"]

Format = Literal["skypilot", "dstack", "dstack-fleet"]
FORMATS: tuple[str, ...] = ("skypilot", "dstack", "dstack-fleet")
"""What ``--emit`` writes: a SkyPilot task, a dstack task, a dstack fleet."""

SKYPILOT_CLOUDS: dict[str, str] = {p: p for p in (
    "aws", "azure", "gcp", "lambda", "oci", "runpod", "vast", "cudo", "primeintellect", "nebius", "hyperbolic",
    "seeweb", "shadeform", "yotta", "mithril", "verda", "kubernetes")}
"""gpuhub provider → SkyPilot cloud (``infra``'s first part), for the providers SkyPilot launches on."""

DSTACK_BACKENDS: dict[str, str] = {**{p: p for p in (
    "aws", "azure", "gcp", "lambda", "cudo", "daytona", "jarvislabs", "kubernetes", "lium", "nebius", "oci",
    "runpod", "seeweb", "verda")}, "vast": "vastai"}
"""gpuhub provider → dstack backend, for the providers dstack launches on."""

_TOOLS = {"skypilot": ("SkyPilot", SKYPILOT_CLOUDS), "dstack": ("dstack", DSTACK_BACKENDS),
          "dstack-fleet": ("dstack", DSTACK_BACKENDS)}
_SPOT = ("spot", "low_priority")
_LAUNCHED = ("on_demand", *_SPOT)


_AWS_ZONE_ID = re.compile(r"^[a-z]{2,6}\d-az\d+$")
"""An AWS availability zone ID (``use1-az4``): the same place for every account, but launchers take zone names
(``us-east-1a``), which map to IDs differently in each account."""


def _zone(offer: Offer) -> str | None:
    """The zone a launcher can be given: the offer's zone, except an AWS zone ID (see :data:`_AWS_ZONE_ID`)."""
    zone = offer.region.zone
    return None if zone is None or (offer.provider == "aws" and _AWS_ZONE_ID.match(zone)) else zone


class HandoffError(ValueError):
    """The chosen offer cannot be handed to the tool (its provider is not one the tool launches on)."""


def default_file(fmt: str) -> str:
    """The file ``--emit`` writes when not told: ``sky-task.yaml``, ``task.dstack.yml`` or ``fleet.dstack.yml``."""
    return {"skypilot": "sky-task.yaml", "dstack": "task.dstack.yml", "dstack-fleet": "fleet.dstack.yml"}[fmt]


def _name(offer: Offer) -> str:
    """A run or fleet name from the instance type: lower-case letters, digits and dashes (both tools accept it)."""
    text = re.sub(r"[^a-z0-9]+", "-", offer.instance_type.lower()).strip("-")
    return ("gpuhub-" + text)[:40].rstrip("-")


def _count(offer: Offer) -> int | None:
    count = float(offer.instance.gpu_count)
    return int(count) if count >= 1 and count.is_integer() else None


def _skypilot(offer: Offer, cloud: str) -> dict[str, Any]:
    infra = "/".join(p for p in (cloud, offer.region.code, _zone(offer)) if p)
    resources: dict[str, Any] = {"infra": infra, "instance_type": offer.instance_type}
    gpu, count = offer.instance.gpu, _count(offer)
    if gpu is not None and count is not None:
        resources["accelerators"] = f"{gpu.name}:{count}"
    resources["use_spot"] = offer.price.purchase in _SPOT
    return {"name": _name(offer), "resources": resources, "run": "nvidia-smi"}


def _dstack(offer: Offer, backend: str, fleet: bool) -> dict[str, Any]:
    config: dict[str, Any] = {"type": "fleet" if fleet else "task", "name": _name(offer)}
    if fleet:
        config["nodes"] = 1
    else:
        config["commands"] = ["nvidia-smi"]
    config["backends"] = [backend]
    config["regions"] = [offer.region.code]
    zone = _zone(offer)
    if zone:
        config["availability_zones"] = [zone]
    config["instance_types"] = [offer.instance_type]
    config["spot_policy"] = "spot" if offer.price.purchase in _SPOT else "on-demand"
    if offer.price.currency == "USD":
        config["max_price"] = float(offer.price.amount)
    gpu, count = offer.instance.gpu, _count(offer)
    if gpu is not None and count is not None:
        memory = offer.instance.gpu_memory_gib
        base = gpu.name.split("-")[0]
        config["resources"] = {"gpu": f"{base}:{memory:g}GB:{count}" if memory else f"{base}:{count}"}
    return config


def handoff(offer: Offer, fmt: str) -> tuple[dict[str, Any], list[str]]:
    """The configuration for ``offer`` in format ``fmt`` (:data:`FORMATS`) as a dict, and notes for the user (a
    price the tool will not pay as such, a GPU it cannot name).

    Raises:
        HandoffError: ``fmt`` is unknown, or the offer's provider is not one the tool launches on (the message
            names the provider and lists the supported ones).
    """
    if fmt not in _TOOLS:
        raise HandoffError(f"{fmt!r} is not allowed; allowed values: {', '.join(FORMATS)}")
    tool, names = _TOOLS[fmt]
    target = names.get(offer.provider)
    if target is None:
        raise HandoffError(f"the chosen offer ({offer.provider} {offer.instance_type} in {offer.region.code}) is "
                           f"from {offer.provider}, which {tool} does not launch on; {tool} launches on: "
                           f"{', '.join(sorted(names))} (narrow the search with --provider)")
    notes = []
    if offer.price.purchase not in _LAUNCHED:
        notes.append(f"{tool} launches on-demand or spot capacity: the offer's {offer.price.purchase} price "
                     f"needs that commitment or reservation on the {offer.provider} account")
    if offer.region.zone and _zone(offer) is None:
        notes.append(f"the price is for AWS zone ID {offer.region.zone}; zone names map to IDs differently in each "
                     "account, so the file names the region only")
    if _count(offer) is None:
        notes.append(f"{offer.instance.gpu_count:g} GPUs is not a whole number: the GPU request is left out, the "
                     "instance type decides")
    if fmt != "skypilot" and offer.price.currency != "USD":
        notes.append(f"max_price left out: dstack's is in USD, the offer's price is in {offer.price.currency}")
    config = _skypilot(offer, target) if fmt == "skypilot" else _dstack(offer, target, fmt == "dstack-fleet")
    return config, notes


def handoff_text(offer: Offer, fmt: str) -> tuple[str, list[str]]:
    """:func:`handoff` as the file's YAML text, headed by comments saying which offer it is and its price.

    Raises:
        HandoffError: as :func:`handoff`.
    """
    import yaml

    config, notes = handoff(offer, fmt)
    zone = f"/{offer.region.zone}" if offer.region.zone else ""
    price = f"{format(offer.price.amount.normalize(), 'f')} {offer.price.currency}/h"
    head = [f"# gpuhub: {offer.provider} {offer.instance_type} in {offer.region.code}{zone}, {offer.price.purchase} "
            f"at {price} ({offer.source.label(offer.price.data_date)})",
            *(f"# note: {n}" for n in notes)]
    head = [" ".join(line.split()) for line in head]  # provider text never opens a new YAML line
    return "\n".join(head) + "\n" + yaml.safe_dump(config, sort_keys=False, default_flow_style=False), notes
