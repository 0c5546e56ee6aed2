"""AWS spot placement scores (1-10: how likely a spot request succeeds) on spot offers, per zone.

``GetSpotPlacementScores`` (EC2 Query API, signed, ``ec2:GetSpotPlacementScores``) is asked once per instance type
in the first region, for every configured region, ``SingleAvailabilityZone=true``, ``TargetCapacity`` 1 instance;
each answer item (``region``, ``availabilityZoneId``, ``score``) scores the spot offer of that type in that zone
(spot offers' zones are zone IDs). Opt-in (``GPUHUB_AWS_PLACEMENT_SCORES=1``, live with credentials): it costs one
call per type and AWS limits how often it may be called. No bundled recording holds one (no real answer is known),
so replayed spot offers have no score and ``--min-placement-score`` keeps none of them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping

from gpuhub.plugin import Obtainability, Offer, ProviderContext, ProviderError
from gpuhub_aws.parse import _local, _xml_root, ec2_error

__all__ = ["parse_placement_scores", "placement_params", "placement_scores", "with_scores"]

Scores = dict[tuple[str, str], int]


def placement_params(instance_type: str, regions: Iterable[str]) -> list[tuple[str, str]]:
    """EC2 Query parameters of one ``GetSpotPlacementScores`` call: one instance of ``instance_type`` per zone."""
    params = [("Action", "GetSpotPlacementScores"), ("Version", "2016-11-15"), ("InstanceTypes.1", instance_type),
              ("TargetCapacity", "1"), ("TargetCapacityUnitType", "units"), ("SingleAvailabilityZone", "true")]
    return params + [(f"RegionNames.{i}", r) for i, r in enumerate(regions, 1)]


def parse_placement_scores(body: bytes) -> dict[str, int]:
    """Zone ID -> score (1-10) of one answer.

    Raises:
        ProviderError: not XML, an EC2 error, or not a GetSpotPlacementScores answer.
    """
    root = _xml_root(body)
    if _local(root.tag) != "GetSpotPlacementScoresResponse":
        error = ec2_error(body)
        raise ProviderError(f"GetSpotPlacementScores failed: {error[0] + ': ' + error[1] if error else root.tag}")
    out: dict[str, int] = {}
    for child in root:
        if _local(child.tag) != "spotPlacementScoreSet":
            continue
        for item in child:
            fields = {_local(e.tag): (e.text or "").strip() for e in item}
            zone, score = fields.get("availabilityZoneId"), fields.get("score", "")
            if zone and score.isdigit() and 1 <= int(score) <= 10:
                out[zone] = int(score)
    return out


def placement_scores(ctx: ProviderContext, types: Iterable[str], regions: list[str],
                     call: Callable[[list[tuple[str, str]]], bytes]) -> Scores:
    """(instance type, zone ID) -> score for ``types``; a failed call warns and leaves those types unscored."""
    scores: Scores = {}
    for itype in types:
        try:
            for zone, score in parse_placement_scores(call(placement_params(itype, regions))).items():
                scores[(itype, zone)] = score
        except ProviderError as exc:
            ctx.warn(f"spot placement scores unavailable ({str(exc)[:120]})")
            break
    return scores


def with_scores(offers: Iterable[Offer], scores: Mapping[tuple[str, str], int]) -> Iterator[Offer]:
    """Spot offers with ``obtain.placement_score`` where a score was given; others unchanged."""
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    for offer in offers:
        score = scores.get((offer.instance_type, offer.region.zone or "")) if offer.price.purchase == "spot" \
            else None
        if score is None:
            yield offer
            continue
        base = offer.obtain or Obtainability()
        yield offer.model_copy(update={"obtain": base.model_copy(update={"placement_score": score,
                                                                           "placement_as_of": now})})
