"""One provider's offers as columns: what the store keeps and what the catalog filters and ranks.

Offers repeat their parts: thousands of offers share one instance type, one region, one set of price terms. So a
snapshot keeps each distinct part once, as JSON (``tables``), and one small integer code per offer and part
(``columns``, numpy arrays). The exact published amount is kept as its decimal string; a float64 ``price`` column
beside it is for filters and ranking. Every Offer field beyond the core five (a plugin's or another layer's, such
as ``obtain``) is kept too, as JSON under ``extras``.

An :class:`~gpuhub.model.Offer` is built (and validated) only for a row that is asked for: :meth:`OfferColumns.offer`.

On disk (any backend) a snapshot's content is :meth:`OfferColumns.to_parts`: one NPY file per column (numpy's
documented format, ``allow_pickle=False``) and one JSON document; :meth:`OfferColumns.content_hash` is the SHA-256
over those parts, so unchanged content is stored once.
"""

from __future__ import annotations

import array
import datetime as dt
import hashlib
import io
import json
import math
import re
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from functools import lru_cache
from operator import attrgetter
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # the models are imported when a row becomes one: a search served from the store needs none
    import pydantic

    from gpuhub.model import Instance, Offer, Price, Region, Source

__all__ = ["COLUMNS", "ColumnBuilder", "ColumnsError", "OfferColumns"]

COLUMNS: dict[str, str] = {"instance": "<i4", "region": "<i4", "terms": "<i4", "amount": "<i4", "source": "<i4",
                           "extra": "<i4", "price": "<f8", "available": "|i1"}
"""Column name -> dtype. Codes index the tables (``extra`` is -1 when an offer has no extra fields);
``price`` is the amount per instance-hour as float64; ``available`` is 1 yes, 0 no, -1 unknown."""
TABLES = ("instances", "regions", "terms", "amounts", "sources", "extras")
_CORE = ("instance", "region", "price", "available", "source")
FORMAT = 1


class ColumnsError(ValueError):
    """Stored columns that do not decode or validate (a damaged or foreign snapshot)."""


def _extra_fields() -> tuple[str, ...]:
    from gpuhub.model import Offer

    return tuple(name for name in Offer.model_fields if name not in _CORE)


@lru_cache(maxsize=1)
def _term_fields() -> tuple[str, ...]:
    """Every :class:`~gpuhub.model.Price` field but the amount (what a stored price-terms row holds)."""
    from gpuhub.model import Price

    return tuple(name for name in Price.model_fields if name != "amount")


@lru_cache(maxsize=1)
def _terms_reader() -> tuple[attrgetter[Any], int]:
    """A getter of a price's terms (:func:`_term_fields`, in order) and where ``upfront`` is among them."""
    fields = _term_fields()
    return attrgetter(*fields), fields.index("upfront")


class OfferSequence(Sequence["Offer"]):
    """A sequence of offers built one row at a time by :meth:`offer` (0 <= row < len): indexing, negative indices
    and slices as a tuple of offers has them."""

    def offer(self, row: int) -> Offer:
        """The :class:`Offer` of row ``row`` (0-based).

        Raises:
            NotImplementedError: in this base class; subclasses build it.
        """
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> Offer: ...

    @overload
    def __getitem__(self, index: slice) -> list[Offer]: ...

    def __getitem__(self, index: int | slice) -> Offer | list[Offer]:
        if isinstance(index, slice):
            return [self.offer(i) for i in range(*index.indices(len(self)))]
        index, n = int(index), len(self)
        if not -n <= index < n:
            raise IndexError(index)
        return self.offer(index % n)

    def __iter__(self) -> Iterator[Offer]:
        return (self.offer(i) for i in range(len(self)))


class OfferColumns(OfferSequence):
    """Offers as aligned columns plus the distinct parts they point at.

    Args:
        columns: name -> 1-D numpy array, every one the same length (see :data:`COLUMNS`).
        tables: ``instances``/``regions``/``terms``/``sources``/``extras``: lists of JSON objects (model dumps);
            ``amounts``: exact decimal strings.

    Raises:
        ColumnsError: columns missing, of the wrong type or length, or codes outside their table.
    """

    def __init__(self, columns: Mapping[str, npt.NDArray[Any]], tables: Mapping[str, list[Any]]) -> None:
        self.columns = dict(columns)
        self.tables = {name: list(tables.get(name, [])) for name in TABLES}
        self._check()
        self._instances: list[Instance | None] = [None] * len(self.tables["instances"])
        self._regions: list[Region | None] = [None] * len(self.tables["regions"])
        self._sources: list[Source | None] = [None] * len(self.tables["sources"])
        self._views: dict[tuple[str, int], Any] = {}  # the shared parts' views (:meth:`view`)
        self._instance_views: list[Instance] | None = None

    def _check(self) -> None:
        lengths = set()
        for name, dtype in COLUMNS.items():
            column = self.columns.get(name)
            if not isinstance(column, np.ndarray) or column.ndim != 1 or column.dtype != np.dtype(dtype):
                raise ColumnsError(f"column {name!r} missing or not a 1-D {dtype} array")
            lengths.add(len(column))
        if len(lengths) > 1:
            raise ColumnsError(f"columns of different lengths: {sorted(lengths)}")
        if not len(self):
            return
        for name, table, allow_missing in (("instance", "instances", False), ("region", "regions", False),
                                           ("terms", "terms", False), ("amount", "amounts", False),
                                           ("source", "sources", False), ("extra", "extras", True)):
            codes = self.columns[name]
            low, high = int(codes.min()), int(codes.max())
            if high >= len(self.tables[table]) or low < (-1 if allow_missing else 0):
                raise ColumnsError(f"column {name!r} points outside table {table!r}")

    def __len__(self) -> int:
        return len(self.columns["price"])

    # --- models for the rows that are asked for -----------------------------------------------------------
    def instance(self, code: int) -> Instance:
        """The validated :class:`Instance` of table row ``code`` (built once)."""
        model = self._instances[code]
        if model is None:
            from gpuhub.model import Instance

            model = self._instances[code] = _validate(Instance, self.tables["instances"][code])
        return model

    def region(self, code: int) -> Region:
        """The validated :class:`Region` of table row ``code`` (built once)."""
        model = self._regions[code]
        if model is None:
            from gpuhub.model import Region

            model = self._regions[code] = _validate(Region, self.tables["regions"][code])
        return model

    def source(self, code: int) -> Source:
        """The validated :class:`Source` of table row ``code`` (built once)."""
        model = self._sources[code]
        if model is None:
            from gpuhub.model import Source

            model = self._sources[code] = _validate(Source, self.tables["sources"][code])
        return model

    def offer(self, row: int) -> Offer:
        """The validated :class:`Offer` of ``row``.

        Raises:
            ColumnsError: the stored parts do not validate.
        """
        from gpuhub.model import Offer, Price

        c = self.columns
        terms = self.tables["terms"][int(c["terms"][row])]
        price = _validate(Price, {**terms, "amount": self.tables["amounts"][int(c["amount"][row])]})
        extra_code = int(c["extra"][row])
        extra = self.tables["extras"][extra_code] if extra_code >= 0 else {}
        available = int(c["available"][row])
        offer: Offer = _validate(Offer, {"instance": self.instance(int(c["instance"][row])),
                                 "region": self.region(int(c["region"][row])), "price": price,
                                 "available": None if available < 0 else bool(available),
                                 "source": self.source(int(c["source"][row])), **extra})
        return offer

    def view(self, row: int) -> Offer:
        """A read-only view of ``row`` with what its :class:`Offer` shows (:mod:`gpuhub.store.rows`), made without
        pydantic; the validated :meth:`offer` when the row's stored parts are not of this code's models. Typed as
        an Offer: it has every attribute, property and method of one that reading code uses, not pydantic's."""
        from gpuhub.store.rows import NotCurrent, offer_view

        c = self.columns
        codes = {name: int(c[name][row]) for name in _ROW}
        try:
            view: Offer = offer_view(self.tables, codes, int(c["available"][row]), self._views)  # type: ignore[assignment]
        except NotCurrent:
            return self.offer(row)
        return view

    def instance_views(self) -> list[Instance]:
        """Every instance-table row as a read-only view (:class:`gpuhub.store.rows.InstanceView`, no pydantic), for a
        consumer that reads a fact of every row, such as a filter on one; the validated models (:meth:`instances`)
        when the rows are not of this code's models. Typed as models: a view has every field of one."""
        views = self._instance_views
        if views is None:
            from gpuhub.store.rows import InstanceView, NotCurrent

            made = self._views  # shared with view(): an instance's view is made once whoever asks first
            try:
                views = [made.get(("instance", code)) or made.setdefault(("instance", code), InstanceView(row))
                         for code, row in enumerate(self.tables["instances"])]
            except NotCurrent:
                views = self.instances()
            self._instance_views = views
        return views

    def instances(self) -> list[Instance]:
        """Every instance-table row as a validated :class:`Instance` (one validation call for the rows not built
        yet; for a consumer that reads every row, such as a filter on an instance fact)."""
        if any(model is None for model in self._instances):
            self._instances = list(_validate(_adapter("instances"), self.tables["instances"]))
        return self._instances  # type: ignore[return-value]  # every row built above

    def check(self, provider: str) -> None:
        """The checks of :meth:`validate` that need no model: every instance row is an object of ``provider``,
        every price-terms row an object, prices finite and non-negative, availability -1/0/1. For a snapshot this
        gpuhub's own code checked when it stored it (its key names this code: :func:`gpuhub.fetch.keys.replay_key`),
        whose rows become models only when they are shown.

        Raises:
            ColumnsError: the first problem found.
        """
        for name in ("instances", "regions", "terms", "sources"):
            if not all(isinstance(row, dict) for row in self.tables[name]):
                raise ColumnsError(f"stored {name} rows are not objects")
        for row in self.tables["instances"]:
            if row.get("provider") != provider:
                raise ColumnsError(f"an instance of provider {row.get('provider')!r}, not {provider!r}")
        self._check_numbers()

    def _check_numbers(self) -> None:
        price = self.columns["price"]
        if len(price) and not (np.isfinite(price).all() and (price >= 0).all()):  # 0: owned prepaid capacity
            raise ColumnsError("a price that is not a non-negative finite number")
        available = self.columns["available"]
        if len(available) and (available.min() < -1 or available.max() > 1):
            raise ColumnsError("availability outside -1/0/1")

    def validate(self, provider: str) -> None:
        """Check what a search relies on without building offers: every distinct instance, region, price-terms
        and source row validates, every instance belongs to ``provider``, prices are finite and positive.

        Raises:
            ColumnsError: the first problem found.
        """
        # One validation call per table is several times faster than a model_validate call per row.
        self._instances = list(_validate(_adapter("instances"), self.tables["instances"]))
        self._regions = list(_validate(_adapter("regions"), self.tables["regions"]))
        self._sources = list(_validate(_adapter("sources"), self.tables["sources"]))
        for instance in self._instances:
            if instance is not None and instance.provider != provider:
                raise ColumnsError(f"an instance of provider {instance.provider!r}, not {provider!r}")
        terms = self.tables["terms"]
        if not all(isinstance(t, dict) for t in terms):
            raise ColumnsError("price terms are not objects")
        _validate(_adapter("terms"), [{**t, "amount": "1"} for t in terms])  # one call for the whole table
        self._check_numbers()

    def offers(self) -> list[Offer]:
        """Every row as an Offer (small snapshots, tests; a search builds only the rows it returns)."""
        return [self.offer(i) for i in range(len(self))]

    def data_days(self) -> npt.NDArray[np.float64]:
        """Each row's price date as days since 1970-01-01 (NaN: undated): the price's own ``data_date``, else its
        source's date. Read once per distinct price-terms and source row, then gathered by the codes."""
        term_days = np.asarray([_day(t.get("data_date")) for t in self.tables["terms"]] + [math.nan])
        source_days = np.asarray([_day(_source_date(s)) for s in self.tables["sources"]] + [math.nan])
        own = term_days[self.columns["terms"]] if len(self) else np.zeros(0)
        days: npt.NDArray[np.float64] = np.where(np.isnan(own), source_days[self.columns["source"]] if len(self)
                                                 else np.zeros(0), own)
        return days

    def data_dates(self) -> tuple[dt.date | None, dt.date | None, int]:
        """The oldest and the newest price date of the rows (None when none is dated) and how many are undated."""
        days = self.data_days()
        dated = days[~np.isnan(days)]
        if not len(dated):
            return None, None, len(days)
        return _date(float(dated.min())), _date(float(dated.max())), len(days) - len(dated)

    def purchases(self) -> tuple[str, ...]:
        """The purchase models present (sorted)."""
        used: list[int] = sorted_distinct(self.columns["terms"]).tolist()
        return tuple(sorted({str(self.tables["terms"][int(i)].get("purchase")) for i in used}))

    # --- serialization ------------------------------------------------------------------------------------
    def to_parts(self) -> dict[str, bytes]:
        """``<column>.npy`` per column (NPY, no pickle) and ``tables.json``; what a backend stores."""
        parts: dict[str, bytes] = {}
        for name in COLUMNS:
            buffer = io.BytesIO()
            np.save(buffer, self.columns[name], allow_pickle=False)
            parts[f"{name}.npy"] = buffer.getvalue()
        parts["tables.json"] = json.dumps({"format": FORMAT, **self.tables}, separators=(",", ":"),
                                          sort_keys=True).encode()
        return parts

    @classmethod
    def from_parts(cls, parts: Mapping[str, bytes]) -> OfferColumns:
        """Decode :meth:`to_parts` output.

        Raises:
            ColumnsError: a part is missing, not NPY/JSON, or inconsistent.
        """
        try:
            tables = json.loads(parts["tables.json"])
            if not isinstance(tables, dict) or tables.get("format") != FORMAT:
                raise ColumnsError("tables.json: not a format-1 object")
            for name in TABLES:
                if not isinstance(tables.get(name, []), list):
                    raise ColumnsError(f"tables.json: {name} is not a list")
            columns = {name: _read_npy(parts[f"{name}.npy"], dtype) for name, dtype in COLUMNS.items()}
        except KeyError as exc:
            raise ColumnsError(f"part {exc} missing") from None
        except (ValueError, UnicodeDecodeError) as exc:
            if isinstance(exc, ColumnsError):
                raise
            raise ColumnsError(str(exc)[:200]) from None
        return cls(columns, tables)

    def content_hash(self) -> str:
        """SHA-256 (hex) over :meth:`to_parts`: equal content, equal hash."""
        return _hash_parts(self.to_parts())


_EPOCH = dt.date(1970, 1, 1)


def sorted_distinct(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The distinct values of a 1-D array, sorted: ``np.unique(values)`` without its cost in a one-shot process
    (numpy 2.4's ``unique`` without indices reads ``np.ma.is_masked``, importing ``numpy.ma``: ~15 ms)."""
    ordered = np.sort(values)
    keep: npt.NDArray[Any] = ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if len(ordered) \
        else ordered
    return keep


def _day(value: Any) -> float:
    """An ISO date (or None) as days since 1970-01-01 (NaN when missing or not a date)."""
    if not value:
        return math.nan
    try:
        return float((dt.date.fromisoformat(str(value)[:10]) - _EPOCH).days)
    except ValueError:
        return math.nan


def _date(day: float) -> dt.date:
    return _EPOCH + dt.timedelta(days=int(day))


def _source_date(source: Any) -> Any:
    """A stored source's date of data (:attr:`gpuhub.model.Source.date_of_data`, from its JSON dump)."""
    if not isinstance(source, dict) or source.get("data_date_known") is False:
        return None
    return source.get("data_date") or source.get("recorded_at")


def _hash_parts(parts: Mapping[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in sorted(parts):
        digest.update(name.encode() + b"\0" + len(parts[name]).to_bytes(8, "little") + parts[name])
    return digest.hexdigest()


# numpy parses an NPY header with ast.literal_eval; CPython 3.11 keeps the AST constructor's recursion depth per
# interpreter, so fetch threads reading snapshots at once can fail with "SystemError: AST constructor recursion
# depth mismatch" (gh-106905; seen failing Azure's replay in a search beside another suite). One header at a time.
_NPY_HEADER_LOCK = threading.Lock()


_NPY_1D = re.compile(rb"\{'descr': '([<|][a-z][0-9])', 'fortran_order': False, 'shape': \(([0-9]{1,12}),\), \} *\n")
"""The header numpy itself writes for a 1-D array in NPY format 1.0 (what :meth:`OfferColumns.to_parts` stores)."""


def _read_npy(data: bytes, dtype: str) -> npt.NDArray[Any]:
    """An NPY (format 1-3) array without copying and never unpickling; only ``dtype`` is accepted.

    The header numpy writes for a 1-D column (format 1.0) is matched exactly and read without numpy's
    ``ast.literal_eval`` parse (a tenth of a warm search's store read); any other header goes through numpy's own
    reader."""
    if data[:8] == b"\x93NUMPY\x01\x00" and len(data) >= 10:
        end = 10 + int.from_bytes(data[8:10], "little")
        found_1d = _NPY_1D.fullmatch(data, 10, end)
        if found_1d is not None and found_1d.group(1).decode() == dtype:
            count = int(found_1d.group(2))
            if end + count * np.dtype(dtype).itemsize > len(data):
                raise ColumnsError(f"NPY column of {count} values is cut short")
            return np.frombuffer(data, dtype=dtype, count=count, offset=end)
    buffer = io.BytesIO(data)
    with _NPY_HEADER_LOCK:
        version = np.lib.format.read_magic(buffer)
        if version == (1, 0):
            shape, fortran, found = np.lib.format.read_array_header_1_0(buffer)
        elif version == (2, 0):
            shape, fortran, found = np.lib.format.read_array_header_2_0(buffer)
        else:
            raise ColumnsError(f"NPY version {version} not supported")
    if found != np.dtype(dtype) or len(shape) != 1 or fortran:
        raise ColumnsError(f"NPY column of dtype {found} shape {shape}, expected 1-D {dtype}")
    array_ = np.frombuffer(data, dtype=found, count=shape[0], offset=buffer.tell())
    return array_


def _validate(model: Any, data: Any) -> Any:
    import pydantic

    try:
        if isinstance(model, pydantic.TypeAdapter):
            return model.validate_python(data)
        return model.model_validate(data)
    except (pydantic.ValidationError, TypeError) as exc:
        raise ColumnsError(f"stored {getattr(model, '__name__', 'table')} does not validate: {str(exc)[:200]}") \
            from None


@lru_cache(maxsize=4)
def _adapter(table: str) -> pydantic.TypeAdapter[Any]:
    import pydantic

    from gpuhub.model import Instance, Price, Region, Source

    model = {"instances": Instance, "regions": Region, "sources": Source, "terms": Price}[table]
    return pydantic.TypeAdapter(list[model])  # type: ignore[valid-type]


_ROW = ("instance", "region", "source", "terms", "amount", "extra")


def _terms_key(price: Price, reader: tuple[attrgetter[Any], int]) -> tuple[Any, ...]:
    """What tells two prices' terms (every field but the amount) apart; an upfront part carries its type too
    (``1 == Decimal(1)``, but only the Decimal is a valid upfront price). ``reader``: :func:`_terms_reader`'s."""
    read, upfront_at = reader
    terms: tuple[Any, ...] = read(price)
    upfront = terms[upfront_at]
    return terms if upfront is None else (*terms, type(upfront))


_KEEP_IDS = 1 << 16
"""How many distinct part objects a builder remembers by identity (kept alive so their ids stay theirs); beyond
that, parts are matched by value."""


class ColumnBuilder:
    """Turns offers into :class:`OfferColumns` one at a time (no list of offers is kept).

    Parts shared by object (the usual case: a provider builds one Instance per instance type, regions come from
    one cache) cost a dict lookup; equal parts that are different objects are merged by value. Each distinct
    part, price-terms tuple and amount is encoded (dumped to its table) once; the price column is filled from the
    distinct amounts at :meth:`build`.

    :meth:`add_checked` is the engine's path: the checks of :func:`gpuhub.store.validate.offer_problem` run in full for
    an offer with a part not seen before, and are not repeated for an offer made only of parts that already passed
    them (an object seen before by identity, terms and amounts by value and type). What is stored is always the
    part as it was when it was checked.
    """

    def __init__(self) -> None:
        from gpuhub.model import Offer

        self._offer_type = Offer
        self._terms_reader = _terms_reader()  # kept: it is read for every offer added
        self._rows = array.array("i")  # per offer: the codes of _ROW, in that order
        self._available = array.array("b")
        self._amount_values = array.array("d")  # float of each distinct amount (the price column's source)
        self._tables: dict[str, list[Any]] = {name: [] for name in TABLES}
        self._by_id: dict[str, dict[int, int]] = {"instance": {}, "region": {}, "source": {}}
        self._by_value: dict[str, dict[Any, int]] = {name: {} for name in ("instance", "region", "source", "terms",
                                                                           "amount", "extra")}
        self._instance_ids, self._region_ids, self._source_ids = (self._by_id[kind] for kind in
                                                                  ("instance", "region", "source"))
        self._terms_codes, self._amount_codes = self._by_value["terms"], self._by_value["amount"]
        self._kept: list[object] = []  # keeps objects whose id() is a key alive, so ids are never reused
        self._extra_fields = _extra_fields()
        self._extras_of = attrgetter(*self._extra_fields) if self._extra_fields else None
        self._no_extras = (None,) * len(self._extra_fields) if len(self._extra_fields) > 1 else None

    def __len__(self) -> int:
        return len(self._available)

    def _shared(self, kind: str, table: str, obj: pydantic.BaseModel) -> int:
        ident = id(obj)
        by_id = self._by_id[kind]
        code = by_id.get(ident)
        if code is not None:
            return code
        by_value = self._by_value[kind]
        code = by_value.get(obj)
        if code is None:
            code = by_value[obj] = len(self._tables[table])
            self._tables[table].append(obj.model_dump(mode="json", exclude=set(type(obj).model_computed_fields)))
        if len(self._kept) < _KEEP_IDS:
            by_id[ident] = code
            self._kept.append(obj)
        return code

    def _terms(self, price: Price) -> int:
        key = _terms_key(price, self._terms_reader)
        by_value = self._terms_codes
        code = by_value.get(key)
        if code is None:
            code = by_value[key] = len(self._tables["terms"])
            self._tables["terms"].append(price.model_dump(mode="json", exclude={"amount"}))
        return code

    def _amount(self, text: str, amount: Any) -> int:
        by_value = self._amount_codes
        code = by_value.get(text)
        if code is None:
            code = by_value[text] = len(self._tables["amounts"])
            self._tables["amounts"].append(text)
            self._amount_values.append(float(amount))
        return code

    def _extra(self, offer: Offer) -> int:
        if self._extras_of is None:
            return -1
        values = self._extras_of(offer)
        if values == self._no_extras or values is None:
            return -1
        if self._no_extras is not None and not any(v is not None for v in values):
            return -1
        dumped = offer.model_dump(mode="json", include=set(self._extra_fields))
        text = json.dumps(dumped, sort_keys=True)
        by_value = self._by_value["extra"]
        code = by_value.get(text)
        if code is None:
            code = by_value[text] = len(self._tables["extras"])
            self._tables["extras"].append(dumped)
        return code

    def add(self, offer: Offer) -> None:
        """Append one offer (not checked: see :meth:`add_checked`)."""
        price = offer.price
        self._rows.extend((self._shared("instance", "instances", offer.instance),
                           self._shared("region", "regions", offer.region),
                           self._shared("source", "sources", offer.source), self._terms(price),
                           self._amount(str(price.amount), price.amount), self._extra(offer)))
        self._available.append(-1 if offer.available is None else int(offer.available))

    def add_checked(self, offer: object, provider: str, purchases: Collection[str]) -> str | None:
        """Append ``offer`` if it is sound as ``provider``'s; else append nothing and return why not (the reason
        :func:`gpuhub.store.validate.offer_problem` gives).

        Args:
            offer: what a provider's ``fetch`` yielded.
            provider: the provider's name.
            purchases: the known purchase model names.
        """
        if type(offer) is self._offer_type:  # the usual case: every part seen and checked before -> lookups only
            price = offer.price
            amount = price.amount
            instance = self._instance_ids.get(id(offer.instance))
            region = self._region_ids.get(id(offer.region))
            source = self._source_ids.get(id(offer.source))
            terms = self._terms_codes.get(_terms_key(price, self._terms_reader))
            available = offer.available
            flag = -1 if available is None else 1 if available is True else 0 if available is False else None
            if (instance is not None and region is not None and source is not None and terms is not None
                    and flag is not None and type(amount) is Decimal):
                text = str(amount)
                code = self._amount_codes.get(text)
                if code is None and amount.is_finite() and amount > 0:  # validate.amount_problem's check
                    code = self._amount(text, amount)
                if code is not None:
                    extras_of = self._extras_of
                    extra = -1 if extras_of is None or extras_of(offer) == self._no_extras else self._extra(offer)
                    self._rows.extend((instance, region, source, terms, code, extra))
                    self._available.append(flag)
                    return None
        from gpuhub.store.validate import offer_problem

        problem = offer_problem(offer, provider, purchases)
        if problem is None:
            self.add(offer)  # type: ignore[arg-type]  # offer_problem: an Offer
        return problem

    def extend(self, offers: Iterable[Offer]) -> ColumnBuilder:
        """Add every offer of ``offers`` (:meth:`add`); returns the builder."""
        for offer in offers:
            self.add(offer)
        return self

    def build(self) -> OfferColumns:
        """The columns of every offer added so far (the builder may go on adding)."""
        rows = np.frombuffer(self._rows, dtype=np.int32).reshape(-1, len(_ROW)) if len(self._rows) else \
            np.zeros((0, len(_ROW)), dtype=np.int32)
        columns: dict[str, npt.NDArray[Any]] = {name: rows[:, n].astype(COLUMNS[name]) for n, name in enumerate(_ROW)}
        values = np.frombuffer(self._amount_values, dtype=np.float64) if len(self._amount_values) else \
            np.zeros(0, dtype=np.float64)
        columns["price"] = values[columns["amount"]].astype(np.float64)
        columns["available"] = np.frombuffer(self._available, dtype=np.int8).copy() if len(self._available) else \
            np.zeros(0, dtype=np.int8)
        return OfferColumns(columns, self._tables)

