"""Expected cost of a job on interruptible capacity: the re-run of work lost since the last checkpoint.

The model (every figure is shown in the explanation):

- ``r``: the interruption bucket's upper bound from its source (AWS Spot Instance Advisor: 5, 11, 16, 22 or 100 %,
  the feed's own ``ranges`` table). AWS states it as the share of spot capacity reclaimed over the trailing month,
  so it is read as a chance per instance-month of :data:`HOURS_PER_MONTH` hours: ``λ = r / 730`` interruptions per
  hour of running. The upper bound is used, so the estimate errs towards more interruptions.
- each interruption loses the work since the last checkpoint, half the checkpoint interval on average
  (``min(checkpoint_every, hours) / 2``), plus :data:`RESTART_HOURS` to get a new instance and reload the checkpoint;
- expected interruptions ``n = λ × hours``; expected run time ``hours + n × (lost + restart)``; expected cost =
  price × expected run time (billed per the offer's increment).

So a job that checkpoints rarely on a ``>20%`` offer (100 % upper bound) pays for much more re-run work than on a
``<5%`` one, and a cheap, risky offer can lose to a slightly dearer, safer one. Where the risk is unknown the flat
``fallback`` fraction is used and the explanation says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuhub.obtain.model import SpotRisk


__all__ = ["HOURS_PER_MONTH", "RESTART_HOURS", "Interruptions", "expected_interruptions", "penalty_fraction",
           "risk_note"]

HOURS_PER_MONTH = 730.0
RESTART_HOURS = 0.25
"""Hours to get a replacement instance running and reload the last checkpoint after an interruption."""


@dataclass(frozen=True)
class Interruptions:
    """Expected interruptions of a job and the run time they add (hours), with the arithmetic as text."""

    rate_per_hour: float | None
    expected: float | None
    extra_hours: float
    explanation: str


def expected_interruptions(risk: SpotRisk | None, hours: float, checkpoint_every_h: float = 1.0,
                           fallback: float = 0.10) -> Interruptions:
    """The expected interruptions of a job of ``hours`` run hours and the re-run they cost.

    Args:
        risk: the offer's interruption risk (None or unknown bounds: ``fallback`` applies).
        hours: run time the job needs, hours (> 0).
        checkpoint_every_h: hours between checkpoints (> 0).
        fallback: extra run time as a fraction of ``hours`` when the risk is unknown.
    """
    if risk is None or risk.max_pct is None:
        why = risk.label if risk is not None else "no source"
        return Interruptions(None, None, hours * fallback,
                             f"interruption risk {why}: +{fallback:.0%} run time assumed "
                             f"({hours:g} h × {fallback:g} = {hours * fallback:.2f} h)")
    rate = risk.max_pct / 100 / HOURS_PER_MONTH
    expected = rate * hours
    lost = min(checkpoint_every_h, hours) / 2 + RESTART_HOURS
    extra = expected * lost
    return Interruptions(rate, expected, extra, (
        f"{risk.label} ({risk.source}{'@' + risk.as_of.isoformat() if risk.as_of else ''}): up to "
        f"{risk.max_pct:g} %/month = {rate:.6f}/h × {hours:g} h = {expected:.3f} interruptions × "
        f"({min(checkpoint_every_h, hours):g} h/2 lost since the last checkpoint + {RESTART_HOURS:g} h restart) "
        f"= +{extra:.3f} h re-run"))


def penalty_fraction(max_pct: float, checkpoint_every_h: float) -> float:
    """Expected extra run time per hour of a long job (fraction) at an interruption upper bound of ``max_pct``
    percent per month: ``max_pct / 100 / 730 × (checkpoint_every / 2 + restart)`` (the training preset's factor)."""
    return max_pct / 100 / HOURS_PER_MONTH * (checkpoint_every_h / 2 + RESTART_HOURS)


def risk_note(risk: SpotRisk | None, checkpoint_every_h: float, training: bool) -> str:
    """The explanation's words for an interruptible offer's risk (and, for the training preset, its factor);
    ``risk`` None: no source gives one (the training preset then assumes its flat penalty, as for an unknown
    bucket)."""
    if risk is None:
        return "interruption unknown (no source gives it)" + (": +15 % effective time assumed" if training else "")
    source = f"{risk.source}@{risk.as_of.isoformat()}" if risk.as_of else risk.source
    text = f"interruption {risk.label} ({source})"
    if risk.max_pct is None:
        return text + (": +15 % effective time assumed" if training else "")
    if training:
        f = penalty_fraction(risk.max_pct, checkpoint_every_h)
        text += (f": expected re-run +{f:.4%} = {risk.max_pct:g} %/month / {HOURS_PER_MONTH:g} h × "
                 f"({checkpoint_every_h:g} h/2 + {RESTART_HOURS:g} h restart)")
    return text
