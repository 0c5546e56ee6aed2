"""Capacity the user already owns, as offers: reservations, savings commitments and running-but-idle instances,
read from a settings file.

The file is YAML, at ``GPUHUB_OWNED`` or ``owned.yaml`` in the user's config directory (platformdirs:
``~/.config/gpuhub/owned.yaml`` on Linux)::

    capacity:
      - id: cr-0a1b2c3d4e5f67890      # the provider's id of the reservation, commitment or instance
        kind: reservation             # reservation, commitment or idle
        provider: aws                 # who runs the machine (any gpuhub provider name)
        instance_type: p5.48xlarge
        region: us-east-1
        zone: us-east-1a              # optional
        gpu: H100                     # GPU name or alias (the GPU table resolves it)
        gpus: 8                       # GPUs per instance
        count: 2                      # instances (default 1)
        vcpus: 192                    # optional
        memory_gib: 2048              # optional
        price_per_hour: 0             # the marginal cost per instance-hour: 0 when prepaid, else the commitment
        currency: USD                 #   rate (default USD)
        ends: 2027-03-31              # date or ISO date-time (UTC unless it says); required but for idle

Each entry becomes an offer of the provider ``owned`` (seller: the entry's provider, so ``--provider aws`` finds
it), purchase model ``owned`` (:data:`gpuhub.model.OWNED`), available, priced at its marginal cost; the ranking puts
owned offers that match a search before every other (:meth:`gpuhub.answer.catalog.Catalog.tiers`) and the
explanation starts with whose it is and until when. An entry whose end has passed is left out (counted as skipped).
The provider is registered by the built-in plugin only when the file exists; it is read at each search (it is the
user's private data: never stored in a snapshot, never published).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gpuhub.errors import ProviderError
from gpuhub.facts.regions import make_region
from gpuhub.fetch.owned_path import ENV as ENV
from gpuhub.fetch.owned_path import settings_path as settings_path
from gpuhub.fetch.provider import Provider, ProviderContext
from gpuhub.model import OWNED, Instance, Offer, Price

__all__ = ["ENV", "OwnedCapacity", "OwnedEntry", "settings_path"]

class OwnedEntry(BaseModel):
    """One piece of owned capacity (see the module's settings format)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, description="the provider's id of the reservation, commitment or instance")
    kind: Literal["reservation", "commitment", "idle"]
    provider: str = Field(min_length=1, description="who runs the machine")
    instance_type: str = Field(min_length=1)
    region: str = Field(min_length=1)
    zone: str | None = None
    gpu: str = Field(min_length=1, description="GPU name or alias")
    gpus: float = Field(gt=0, description="GPUs per instance")
    count: int = Field(default=1, ge=1, description="instances")
    vcpus: float | None = Field(default=None, ge=0)
    memory_gib: float | None = Field(default=None, ge=0, description="host RAM, GiB")
    price_per_hour: Decimal = Field(ge=0, description="marginal cost per instance-hour: 0 prepaid, else the rate")
    currency: str = "USD"
    ends: dt.datetime | None = Field(default=None, description="when the capacity stops being the user's (UTC)")

    @field_validator("ends", mode="before")
    @classmethod
    def _ends(cls, value: Any) -> Any:
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):  # a date: the end of that day, UTC
            return dt.datetime.combine(value, dt.time.max, tzinfo=dt.timezone.utc)
        return value

    @field_validator("ends")
    @classmethod
    def _utc(cls, value: dt.datetime | None) -> dt.datetime | None:
        return value.replace(tzinfo=dt.timezone.utc) if value is not None and value.tzinfo is None else value

    def explanation(self) -> str:
        """Whose it is, until when and why it costs what it does: ``your reservation cr-… covers this until
        2027-03-31 (2 instances; prepaid: marginal cost 0)``."""
        until = f" until {self.ends.date().isoformat()}" if self.ends is not None else ""
        what = {"reservation": "covers this", "commitment": "covers this", "idle": "is running, idle"}[self.kind]
        kind = "idle instance" if self.kind == "idle" else self.kind
        cost = ("prepaid: marginal cost 0" if self.price_per_hour == 0 else
                f"marginal cost: its rate of {format(self.price_per_hour.normalize(), 'f')} {self.currency}/h")
        count = f"{self.count} instances; " if self.count > 1 else ""
        return f"your {kind} {self.id} {what}{until} ({count}{cost})"


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class OwnedCapacity(Provider):
    """The user's own capacity from the settings file (:func:`settings_path`); ``clock`` gives the time against
    which end dates are checked (default now, UTC)."""

    name = "owned"
    display_name = "Capacity you own"
    kind = "other"
    static = True
    resells = True  # `--provider aws` finds the user's AWS reservations: the seller is the entry's provider
    price_change_period_s = 86400.0

    def __init__(self, path: Path | None = None, clock: Callable[[], dt.datetime] = _utc_now) -> None:
        self.path = path if path is not None else settings_path()
        self.clock = clock

    def fixtures_dir(self) -> Path | None:
        """None: the settings file is read at each search, never a recording."""
        return None

    def entries(self) -> list[dict[str, Any]]:
        """The raw entries of the settings file.

        Raises:
            ProviderError: the file cannot be read, is not YAML, or has no ``capacity`` list.
        """
        import yaml

        try:
            data = yaml.safe_load(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise ProviderError(f"owned capacity settings {self.path} cannot be read: {exc}") from None
        items = data.get("capacity") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise ProviderError(f"owned capacity settings {self.path} need a list under 'capacity:' (see "
                                "gpuhub.fetch.owned for the format)")
        return items

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """One offer per entry still owned at ``clock()``; a malformed entry is skipped and counted with the
        reason (the field and what is wrong), an ended one counted as ``ended``.

        Raises:
            ProviderError: the settings file is unusable (see :meth:`entries`).
        """
        now = self.clock()
        for item in self.entries():
            try:
                entry = OwnedEntry.model_validate(item)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "entry"
                ctx.skip(f"entry {where}: {first['msg']}")
                continue
            if entry.ends is not None and entry.ends <= now:
                ctx.skip("ended")
                continue
            with ctx.guard("owned capacity entry"):
                yield self._offer(ctx, entry)

    def _offer(self, ctx: ProviderContext, entry: OwnedEntry) -> Offer:
        instance = Instance(provider=self.name, instance_type=entry.instance_type, gpu=ctx.gpu(entry.gpu),
                            gpu_count=entry.gpus, fractional=entry.gpus < 1, vcpus=entry.vcpus,
                            memory_gib=entry.memory_gib, seller=entry.provider, note=entry.explanation())
        return Offer(instance=instance, region=make_region(entry.provider, entry.region, entry.zone),
                     price=Price(amount=entry.price_per_hour, currency=entry.currency, purchase=OWNED),
                     available=True, available_count=entry.count, source=ctx.source)
