"""Usage over a week: a :class:`Profile` (GPUs needed in each quarter hour of a UTC week) and :class:`Team` (a
time zone or place, working hours and days, GPUs), with the checks that name the bad argument.

The week is Monday 00:00 UTC to Sunday 24:00 UTC in :data:`SLOTS` quarter hours (a quarter hour so that zones
such as Asia/Kolkata, +05:30, or Asia/Kathmandu, +05:45, fall on the grid). A team's local hours are put on it
for one reference week (``week``, a Monday; daylight saving time is that week's), wrapping around the week's end.

Time zones are IANA names read through :mod:`zoneinfo`. A team given only a place gets that place's time zone
(:func:`gpuhub.facts.zones.zone_at`); a team given only a time zone is placed at that zone's city
(``Europe/Berlin`` → Berlin, through :func:`gpuhub.facts.location.resolve_place`, else the zone's own coordinates
in the time zone database).
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from gpuhub.errors import QueryError
from gpuhub.facts.location import Place, resolve_place
from gpuhub.facts.zones import zone_at, zone_city

__all__ = ["HOURS_PER_MONTH", "MAX_MONTHS", "SLOTS", "SLOTS_PER_HOUR", "WEEKS_PER_MONTH", "Profile", "Team",
           "parse_team", "read_profile", "simple_profile", "team_slots"]

SLOTS_PER_HOUR = 4
SLOTS = 168 * SLOTS_PER_HOUR
HOURS_PER_MONTH = Decimal(730)
"""Hours in an average month (8760 / 12), as in :data:`gpuhub.answer.cost.HOURS_PER_MONTH`."""
WEEKS_PER_MONTH = HOURS_PER_MONTH / 168
"""730 / 168 = 4.345... weeks in an average month."""
MAX_MONTHS = 36
"""The longest term any offer carries (3-year reserved terms): a plan longer than that is refused."""
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class Profile:
    """GPUs needed in each quarter hour of a UTC week (``SLOTS`` values, Monday 00:00 first), for ``months``."""

    gpus: tuple[float, ...]
    months: int
    label: str

    @property
    def peak(self) -> float:
        """The most GPUs needed at once."""
        return max(self.gpus)

    @property
    def gpu_hours_per_week(self) -> Decimal:
        """GPU-hours used in a week."""
        return Decimal(str(sum(self.gpus))) / SLOTS_PER_HOUR

    def instances(self, gpus_per_instance: float) -> list[int]:
        """Whole instances of ``gpus_per_instance`` GPUs needed in each slot (rounded up)."""
        return [math.ceil(g / gpus_per_instance - 1e-9) for g in self.gpus]


def check_months(months: object) -> int:
    """``months`` as an int from 1 to :data:`MAX_MONTHS`.

    Raises:
        QueryError: (argument ``months``) not a whole number in that range.
    """
    if not (isinstance(months, int) and not isinstance(months, bool) and 1 <= months <= MAX_MONTHS):
        raise QueryError("months", f"must be a whole number of months from 1 to {MAX_MONTHS} (the longest term "
                                   f"priced, 3 years), got {months!r}")
    return months


def _positive(name: str, value: object, *, upper: float | None = None) -> float:
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
            and (upper is None or value <= upper)):
        allowed = f"a number above 0 and at most {upper:g}" if upper is not None else "a number above 0"
        raise QueryError(name, f"must be {allowed}, got {value!r}")
    return float(value)


def simple_profile(gpus: float, hours_per_day: float, days_per_week: int, months: int) -> Profile:
    """"``gpus`` GPUs, ``hours_per_day`` hours a day (from 00:00 UTC), ``days_per_week`` days a week (from
    Monday)" for ``months`` months. Where in the day the hours fall does not change a commitment plan.

    Raises:
        QueryError: a negative or zero number, more than 24 hours a day, days not 1 to 7, months not 1 to 36.
    """
    _positive("gpus", gpus)
    _positive("hours_per_day", hours_per_day, upper=24)
    if not (isinstance(days_per_week, int) and 1 <= days_per_week <= 7):
        raise QueryError("days_per_week", f"must be a whole number from 1 to 7, got {days_per_week!r}")
    check_months(months)
    slots_a_day = round(hours_per_day * SLOTS_PER_HOUR)
    if slots_a_day == 0:
        raise QueryError("hours_per_day", f"must be at least 0.25 h (a quarter hour), got {hours_per_day!r}")
    values = [0.0] * SLOTS
    for day in range(days_per_week):
        for s in range(slots_a_day):
            values[day * 24 * SLOTS_PER_HOUR + s] = float(gpus)
    return Profile(tuple(values), months,
                   f"{gpus:g} GPUs, {hours_per_day:g} h a day, {days_per_week} days a week, {months} months")


def read_profile(path: Path, months: int) -> Profile:
    """A profile file: one line per hour of the week, ``hour,gpus`` (hour 0 = Monday 00:00 UTC to 167 = Sunday
    23:00) or just ``gpus`` (168 lines in order); ``#`` starts a comment; hours not listed need 0 GPUs.

    Raises:
        QueryError: (argument ``profile``) unreadable, an hour outside 0-167, an hour given twice (overlapping
            hours), a negative or non-numeric GPU count, more than 168 lines, or no GPU needed at all.
    """
    check_months(months)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryError("profile", f"cannot read {str(path)!r}: {exc}") from None
    rows = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    rows = [r for r in rows if r]
    hourly: dict[int, float] = {}
    for n, row in enumerate(rows):
        parts = [p.strip() for p in row.split(",")]
        try:
            hour, value = (int(parts[0]), float(parts[1])) if len(parts) == 2 else (n, float(parts[0]))
        except (ValueError, IndexError):
            raise QueryError("profile", f"line {row!r} is not 'hour,gpus' or 'gpus' (hour 0-167, gpus >= 0)") \
                from None
        if not 0 <= hour < 168:
            raise QueryError("profile", f"hour {hour} is outside the week; allowed hours: 0 (Monday 00:00 UTC) "
                                        f"to 167 (Sunday 23:00 UTC); the profile may not be longer than a week")
        if hour in hourly:
            raise QueryError("profile", f"hour {hour} is given twice (overlapping hours); give each hour once")
        if not (math.isfinite(value) and value >= 0):
            raise QueryError("profile", f"hour {hour}: GPUs must be 0 or more, got {parts[-1]!r}")
        hourly[hour] = value
    if not any(hourly.values()):
        raise QueryError("profile", f"{str(path)!r} needs no GPU in any hour")
    values = [hourly.get(s // SLOTS_PER_HOUR, 0.0) for s in range(SLOTS)]
    return Profile(tuple(values), months, f"profile {Path(path).name}, {months} months")


@dataclass(frozen=True)
class Team:
    """A team: its name, IANA time zone, where it sits, local working hours (``(start, end)`` in hours after
    local midnight, end exclusive; end may pass midnight), local working days (0 = Monday) and GPUs needed."""

    name: str
    zone: str
    place: Place
    hours: tuple[tuple[float, float], ...]
    days: tuple[int, ...]
    gpus: float
    how: str

    @property
    def hours_per_day(self) -> float:
        """Working hours a day."""
        return sum(end - start for start, end in self.hours)


def _hours(text: str) -> tuple[tuple[float, float], ...]:
    ranges = []
    for part in text.split("+"):
        m = re.fullmatch(r"\s*(\d{1,2})(?::(\d{2}))?\s*-\s*(\d{1,2})(?::(\d{2}))?\s*", part)
        if not m:
            raise QueryError("team", f"hours={text!r}: write local hours as START-END, e.g. 9-17 or 09:30-18:00, "
                                     "several joined by + (9-12+13-17)")
        start = int(m.group(1)) + int(m.group(2) or 0) / 60
        end = int(m.group(3)) + int(m.group(4) or 0) / 60
        if not (0 <= start < 24 and 0 < end <= 24) or start == end:
            raise QueryError("team", f"hours={text!r}: hours run from 0 to 24 and a range may not be empty")
        if (start * 60) % 15 or (end * 60) % 15:
            raise QueryError("team", f"hours={text!r}: minutes must be :00, :15, :30 or :45")
        ranges.append((start, end if end > start else end + 24))
    ordered = sorted(ranges)
    for (s1, e1), (s2, _) in itertools.pairwise(ordered):
        if s2 < e1:
            raise QueryError("team", f"hours={text!r}: the ranges {s1:g}-{e1:g} and {s2:g}-... overlap "
                                     "(overlapping hours); give each hour once")
    if sum(e - s for s, e in ordered) > 24:
        raise QueryError("team", f"hours={text!r}: more than 24 hours a day")
    return tuple(ordered)


def _days(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.lower().split("+"):
        first, _, last = part.strip().partition("-")
        if first not in DAYS or (last and last not in DAYS):
            raise QueryError("team", f"days={text!r}: allowed: {', '.join(DAYS)}, a range such as mon-fri or "
                                     "sun-thu, several joined by +")
        a, b = DAYS.index(first), DAYS.index(last or first)
        span = [(a + i) % 7 for i in range((b - a) % 7 + 1)]
        if set(span) & set(out):
            raise QueryError("team", f"days={text!r}: a day is given twice")
        out.extend(span)
    return tuple(out)


def _zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise QueryError("team", f"tz={name!r} is not a known time zone; allowed: an IANA name such as "
                                 "Europe/Berlin, America/New_York, Asia/Tokyo or UTC (or give place=CITY)") from None


def _place_of_zone(name: str) -> Place:
    city = name.rsplit("/", 1)[-1].replace("_", " ")
    try:
        return resolve_place(city)
    except QueryError:
        pass
    found = zone_city(name)
    if found is not None:
        return Place(name, *found)
    raise QueryError("team", f"tz={name!r} names no place whose coordinates are known; add place=CITY")


def parse_team(text: str) -> Team:
    """A team from ``name=eu,tz=Europe/Berlin,place=Frankfurt,hours=9-17,days=mon-fri,gpus=8`` (``tz`` or
    ``place`` needed; ``hours`` and ``gpus`` needed; ``days`` defaults to mon-fri; ``name`` to the zone or place).

    Raises:
        QueryError: (argument ``team``) an unknown key, time zone or place; overlapping or empty hours; a
            negative or zero GPU count.
    """
    fields: dict[str, str] = {}
    last = ""
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep and last == "place":  # place=LAT,LON or place=Cambridge, GB: the comma belongs to the place
            fields["place"] += "," + part
            continue
        last = key
        if not sep or key not in ("name", "tz", "place", "hours", "days", "gpus"):
            raise QueryError("team", f"{part.strip()!r} in {text!r}: write key=value pairs joined by commas; "
                                     "allowed keys: name, tz, place, hours, days, gpus")
        fields[key] = value.strip()
    for need in ("hours", "gpus"):
        if need not in fields:
            raise QueryError("team", f"{text!r} lacks {need}=...: e.g. tz=Asia/Tokyo,hours=9-17,gpus=8")
    if "tz" not in fields and "place" not in fields:
        raise QueryError("team", f"{text!r} lacks tz=ZONE or place=CITY")
    try:
        gpus = float(fields["gpus"])
    except ValueError:
        gpus = float("nan")
    if not (math.isfinite(gpus) and gpus > 0):
        raise QueryError("team", f"gpus={fields['gpus']!r}: must be a number above 0")
    how = []
    if "place" in fields:
        try:
            place = resolve_place(fields["place"])
        except QueryError as exc:
            raise QueryError("team", f"place={fields['place']!r}: {exc.detail}") from None
    if "tz" in fields:
        zone = fields["tz"]
        _zone(zone)
        if "place" not in fields:
            place = _place_of_zone(zone)
            how.append(f"placed at {place.label} (the city of {zone})")
    else:
        found = zone_at(place.latitude, place.longitude)
        if found is None:
            raise QueryError("team", f"place={fields['place']!r}: no time zone table to look it up; give tz=ZONE")
        zone = found[0]
        how.append(f"time zone {zone} ({found[1]})")
    hours = _hours(fields["hours"])
    days = _days(fields.get("days", "mon-fri"))
    name = fields.get("name") or fields.get("place") or zone
    return Team(name, zone, place, hours, days, gpus, "; ".join(how))


def team_slots(team: Team, week: dt.date) -> list[bool]:
    """The UTC-week slots (``SLOTS``) in which ``team`` works, for the week starting Monday ``week`` (local
    working days of that week, that week's daylight saving time, wrapping around the week's end)."""
    tz = _zone(team.zone)
    monday = dt.datetime.combine(week, dt.time(0), dt.timezone.utc)
    busy = [False] * SLOTS
    for day in team.days:
        for start, end in team.hours:
            local = dt.datetime.combine(week + dt.timedelta(days=day), dt.time(0), tz)
            begin = (local + dt.timedelta(hours=start)).astimezone(dt.timezone.utc)
            length = round((end - start) * SLOTS_PER_HOUR)
            first = round((begin - monday).total_seconds() / 900)
            for s in range(first, first + length):
                busy[s % SLOTS] = True
    return busy


def check_week(week: dt.date) -> dt.date:
    """``week`` must be a Monday.

    Raises:
        QueryError: (argument ``week``) it is another day.
    """
    if week.weekday() != 0:
        raise QueryError("week", f"{week.isoformat()} is a {DAYS[week.weekday()]}; give a Monday, e.g. "
                                 f"{(week - dt.timedelta(days=week.weekday())).isoformat()}")
    return week


def profile_of(teams: Sequence[tuple[Team, list[bool]]], months: int, label: str) -> Profile:
    """The summed profile of teams (GPUs in each slot where each works)."""
    values = [sum(t.gpus for t, busy in teams if busy[s]) for s in range(SLOTS)]
    return Profile(tuple(values), check_months(months), label)
