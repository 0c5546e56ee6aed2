"""The GPU table: canonical GPU names, their specs, and the mapping from any provider spelling to a name.

Source: ``gpuhub/data/gpus.csv``, built from ``shared/reference/gpus.csv`` by ``scripts/build_reference_data.py``
(each row keeps its ``source``). Tensor figures are dense TFLOPS; memory is the marketed size per GPU in GiB.
Plugins add rows and aliases through the ``register_gpu_specs`` hook.
"""

from __future__ import annotations

import difflib
import functools
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpuhub.facts._data import read_csv

if TYPE_CHECKING:
    from gpuhub.model import Gpu
__all__ = ["GpuSpec", "GpuTable", "UnknownGpuError", "load_builtin_specs"]


@dataclass(frozen=True)
class GpuSpec:
    """One row of the GPU table: a canonical GPU name in one form factor, with its specs.

    Throughput figures are dense TFLOPS (None when the GPU has no such unit); bandwidth is GB/s (decimal);
    ``tdp_w`` is watts; ``memory_gib`` is the marketed memory per GPU.
    """

    name: str
    vendor: str
    form_factor: str
    memory_gib: float
    model: str = ""
    architecture: str | None = None
    memory_bandwidth_gb_s: float | None = None
    fp64_tflops: float | None = None
    fp32_tflops: float | None = None
    tf32_tflops: float | None = None
    fp16_tflops: float | None = None
    bf16_tflops: float | None = None
    fp8_tflops: float | None = None
    tdp_w: float | None = None
    interconnect: str | None = None
    mig_support: bool = False
    aliases: tuple[str, ...] = ()
    source: str = ""
    is_gpu: bool = True

    def to_gpu(self, raw_name: str | None = None) -> Gpu:
        """The :class:`~gpuhub.model.Gpu` an offer carries for this spec."""
        from decimal import Decimal

        from gpuhub.model import Gpu

        return Gpu(name=self.name, vendor=self.vendor, memory_gib=Decimal(str(self.memory_gib)),
                   form_factor=self.form_factor, architecture=self.architecture, raw_name=raw_name, known=True)


class UnknownGpuError(ValueError):
    """A GPU name given by a user does not resolve; ``suggestions`` holds the closest known names."""

    def __init__(self, name: str, suggestions: list[str], known: list[str]) -> None:
        self.name, self.suggestions = name, suggestions
        hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown GPU {name!r}.{hint} Known GPUs: {', '.join(known)}")


# Words that carry no model information in provider spellings.
_NOISE = {"nvidia", "tesla", "amd", "gpu", "gpus", "hgx", "dgx", "instinct", "radeon", "geforce", "accelerator",
          "hbm3", "hbm3e", "hbm2", "hbm2e", "gddr6", "the", "generation", "edition", "superchip", "grace", "hopper",
          "server", "blackwell", "datacenter"}  # "workstation" names a product: RTX PRO 6000 Workstation
# Model keys, most specific first; each is a regex over the normalized spelling (tokens joined by single spaces).
_MODEL_PATTERNS: list[tuple[str, str]] = [
    ("GH200", r"\bgh ?200\b"),
    ("GB300", r"\bgb ?300\b"),
    ("GB200", r"\bgb ?200\b"),
    ("B300", r"\bb ?300\b"),
    ("B200", r"\bb ?200\b"),
    ("H200", r"\bh ?200\b"),
    ("H100", r"\bh ?100\b"),
    ("A100", r"\ba ?100\b"),
    ("A800", r"\ba ?800\b"),
    ("A10G", r"\ba ?10g\b"),
    ("A10", r"\ba ?10\b"),
    ("L40S", r"\bl ?40s\b"),
    ("L40", r"\bl ?40\b"),
    ("L4", r"\bl ?4\b"),
    ("RTXPRO6000-WS", r"\brtx ?pro ?6000\b.*\b(wk|ws|workstation)\b"),  # Workstation Edition (RunPod "WK", Vast "WS")
    ("RTXPRO6000", r"\brtx ?pro ?6000\b"),
    ("RTXPRO4500", r"\brtx ?pro ?4500\b"),
    ("RTX6000-Ada", r"\b(rtx ?)?6000 ?ada\b"),
    ("RTX4000-Ada", r"\b(rtx ?)?4000 ?ada\b"),
    ("RTX2000-Ada", r"\b(rtx ?)?2000 ?ada\b"),
    ("RTXA6000", r"\b(rtx ?)?a ?6000\b"),
    ("RTXA5000", r"\b(rtx ?)?a ?5000\b"),
    ("RTXA4500", r"\b(rtx ?)?a ?4500\b"),
    ("RTXA4000", r"\b(rtx ?)?a ?4000\b"),
    # GeForce cards; a "Ti" or "D" model is another card and stays unknown.
    ("RTX5090", r"\brtx ?5090(?! ?(ti|d)\b)\b"),
    ("RTX4090", r"\brtx ?4090(?! ?(ti|d)\b)\b"),
    ("RTX3090", r"\brtx ?3090(?! ?(ti|d)\b)\b"),
    ("RTX3070", r"\brtx ?3070(?! ?(ti|d)\b)\b"),
    ("RTX3060", r"\brtx ?3060(?! ?(ti|d)\b)\b"),
    ("A40", r"\ba ?40\b"),
    ("A30", r"\ba ?30\b"),
    ("A16", r"\ba ?16\b"),
    ("RTX6000", r"\b(quadro ?)?rtx ?6000\b"),
    ("T4", r"\bt ?4g?\b"),
    ("V100", r"\bv ?100\b"),
    ("P100", r"\bp ?100\b"),
    ("P4", r"\bp ?4\b"),
    ("K80", r"\bk ?80\b"),
    ("M60", r"\bm ?60\b"),
    ("MI355X", r"\bmi ?355x\b"),
    ("MI300X", r"\bmi ?300x\b"),
    ("MI250X", r"\bmi ?250x\b"),
    ("MI25", r"\bmi ?25\b"),
    ("RadeonProV520", r"\b(pro ?)?v ?520\b"),
    ("RadeonProV620", r"\b(pro ?)?v ?620\b"),
    ("RadeonProV710", r"\b(pro ?)?v ?710\b"),
    ("Trainium3", r"\btrainium ?3\b"),
    ("Trainium2", r"\btrainium ?2\b"),
    ("Trainium", r"\btrainium ?1?\b"),
    ("Inferentia2", r"\binferentia ?2\b"),
    ("Inferentia", r"\binferentia ?1?\b"),
    ("Gaudi", r"\bgaudi ?1?\b"),
]
@functools.cache
def _compiled() -> list[tuple[str, re.Pattern[str]]]:
    """The model patterns compiled on first use (a search served from the store reads stored names)."""
    return [(key, re.compile(rx)) for key, rx in _MODEL_PATTERNS]
_FORM_WORDS = {"sxm", "sxm2", "sxm4", "sxm5", "sxm6", "pcie", "pci", "e", "nvl", "nvlink", "mega", "plus", "hgx",
              "baremetal"}
_MEMORY_RX = re.compile(r"\b(\d{1,3}) ?(?:gb|gib|g)\b")
# Memory-based variants of one model key: (model key, memory GiB) -> canonical name.
_MEMORY_VARIANTS = {("A100", 80): "A100-80GB", ("A100", 40): "A100", ("V100", 32): "V100-32GB",
                    ("V100", 16): "V100", ("H100", 94): "H100-NVL", ("H100", 80): "H100"}
# Model keys whose NVL board (a PCIe card with an NVLink bridge) is its own canonical name.
_NVL_VARIANTS = {"H100": "H100-NVL", "H200": "H200-NVL"}
_NON_GPU_VENDORS = {"AWS"}


def _normalize(raw: str) -> str:
    text = raw.lower()
    text = re.sub(r"(\d)x\b", r"\1 x", text)  # "8x" prefixes in descriptions
    text = re.sub(r"[_\-/(),:;]+", " ", text)
    text = re.sub(r"(\d)(nvl|sxm\d?|pcie)\b", r"\1 \2", text)  # "H100NVL", "H100SXM5"
    text = re.sub(r"(\d) ?(gb|gib)\b", r"\1gb", text)
    tokens = [t for t in text.split() if t not in _NOISE]
    return " ".join(tokens)


def _form_hint(text: str) -> str | None:
    # HGX/DGX boards carry SXM modules by definition (checked before the noise words are dropped).
    if re.search(r"\bsxm\d?\b|\bnvlink\b|\bmega\b|\bplus\b|\bhgx\b|\bdgx\b", text):
        return "SXM"
    if re.search(r"\bpcie\b|\bpci e\b", text):
        return "PCIe"
    return None


@dataclass
class GpuTable:
    """Canonical GPU specs and aliases; thread-safe to read, extended by plugins before searches run.

    The process-wide table is ``gpuhub.gpu_table()`` (built by the plugin registry).

    One job, one class (about 260 lines): adding specs and aliases and resolving a provider's GPU name to a spec
    share the alias index and its lock; half the length is the name resolution (aliases, form factors, close
    matches) that every plugin relies on.
    """

    specs: list[GpuSpec] = field(default_factory=list)
    _aliases: dict[str, str] = field(default_factory=dict)
    _pinned: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Provider spellings registered by one plugin (its scope) apply to that plugin's providers only.
    _scoped: dict[str, dict[str, str]] = field(default_factory=dict)
    _provider_scope: dict[str, str] = field(default_factory=dict)
    _owners: dict[str, dict[str, str]] = field(default_factory=dict)  # normalized spelling -> {owner: name}
    _global_owners: dict[str, dict[str, str]] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)
    """Alias conflicts: one spelling mapped to different GPUs by two plugins (each message names both)."""
    _fingerprint: str | None = field(default=None, repr=False, compare=False)
    """:meth:`fingerprint`, remembered until the table changes (every snapshot key of a search includes it)."""

    def add(self, spec: GpuSpec) -> None:
        """Add a spec row (a new canonical name, or another form factor of a known one) and its aliases."""
        with self._lock:
            self._fingerprint = None
            self.specs.append(spec)
            self._aliases[_normalize(spec.name)] = spec.name
            for alias in spec.aliases:
                self._aliases.setdefault(_normalize(alias), spec.name)

    def add_alias(self, alias: str, name: str, *, scope: str | None = None, owner: str | None = None) -> None:
        """Map a provider spelling to a canonical name that is already in the table (a pinned alias: a memory
        figure reported beside the spelling never turns it into another variant; a memory figure written in the
        spelling itself still wins).

        Args:
            alias: the provider's spelling, e.g. ``"nvidia-tesla-a100"``.
            name: a canonical name of the table.
            scope: the plugin that registered it: the alias then applies only to that plugin's providers (see
                :meth:`bind_provider`) and to names users type; None makes it global (every provider's spelling).
                Two plugins mapping one spelling to different GPUs is recorded in :attr:`conflicts`; a global
                spelling in conflict is dropped (never resolved by load order).
            owner: who registered it, for conflict messages (default: ``scope``, else ``"global"``).

        Raises:
            UnknownGpuError: ``name`` is not a canonical name in the table.
        """
        if name not in self.names():
            raise UnknownGpuError(name, self._close(name), self.names())
        key = _normalize(alias)
        owner = owner or scope or "global"
        with self._lock:
            self._fingerprint = None
            owners = self._owners.setdefault(key, {})
            clash = {o: n for o, n in owners.items() if n != name and o != owner}
            owners[owner] = name
            if scope is None:
                self._global_owners.setdefault(key, {})[owner] = name
            if clash:
                other, other_name = next(iter(clash.items()))
                self.conflicts.append(f"GPU alias {alias!r}: plugin {owner!r} maps it to {name}, plugin {other!r} "
                                      f"to {other_name}; each plugin's providers keep their own, users must type "
                                      "a canonical name")
            if scope is None:
                if len(set(self._global_owners[key].values())) > 1:
                    self._aliases.pop(key, None)
                    self._pinned.discard(key)
                    return
                self._aliases[key] = name
                self._pinned.add(key)
            else:
                self._scoped.setdefault(scope, {})[key] = name

    def bind_provider(self, provider: str, scope: str) -> None:
        """Let ``provider``'s GPU spellings use the aliases registered under ``scope`` (its plugin's name)."""
        with self._lock:
            self._fingerprint = None
            self._provider_scope[provider] = scope

    def fingerprint(self) -> str:
        """A short hash of every spec row and alias (with its scope): equal tables resolve every spelling alike.

        Caches of parsed offers must key on it (a plugin enabled or disabled can change GPU identities).
        """
        import hashlib

        with self._lock:
            if self._fingerprint is None:
                text = repr((self.specs, sorted(self._aliases.items()), sorted(self._pinned),
                             sorted((s, sorted(m.items())) for s, m in self._scoped.items()),
                             sorted(self._provider_scope.items())))
                self._fingerprint = hashlib.sha256(text.encode()).hexdigest()[:16]
            return self._fingerprint

    def to_state(self) -> dict[str, Any]:
        """Everything the table holds, as JSON-ready data (the plugin index keeps it; :meth:`from_state` reads it
        back into an equal table with the same :meth:`fingerprint`)."""
        from dataclasses import asdict

        with self._lock:
            return {"specs": [asdict(spec) for spec in self.specs], "aliases": dict(self._aliases),
                    "pinned": sorted(self._pinned), "scoped": {s: dict(m) for s, m in self._scoped.items()},
                    "provider_scope": dict(self._provider_scope),
                    "owners": {k: dict(v) for k, v in self._owners.items()},
                    "global_owners": {k: dict(v) for k, v in self._global_owners.items()},
                    "conflicts": list(self.conflicts)}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> GpuTable:
        """The table :meth:`to_state` described.

        Raises:
            KeyError, TypeError, ValueError: ``state`` is not what :meth:`to_state` writes.
        """
        specs = [GpuSpec(**{**row, "aliases": tuple(row.get("aliases", ()))}) for row in state["specs"]]
        return cls(specs=specs, _aliases=dict(state["aliases"]), _pinned=set(state["pinned"]),
                   _scoped={s: dict(m) for s, m in state["scoped"].items()},
                   _provider_scope=dict(state["provider_scope"]),
                   _owners={k: dict(v) for k, v in state["owners"].items()},
                   _global_owners={k: dict(v) for k, v in state["global_owners"].items()},
                   conflicts=list(state["conflicts"]))

    def _alias_for(self, text: str, provider: str | None) -> tuple[str | None, bool]:
        """The canonical name an alias gives ``text`` for ``provider`` (its plugin's aliases, then global ones),
        and whether that alias is pinned."""
        scope = self._provider_scope.get(provider) if provider else None
        if scope is not None:
            own = self._scoped.get(scope, {}).get(text)
            if own is not None:
                return own, True
        return self._aliases.get(text), text in self._pinned

    def _user_alias(self, text: str) -> str | None:
        """An alias for a name a user typed: global, else one plugin's (when the plugins that know it agree)."""
        if text in self._aliases:
            return self._aliases[text]
        names = {m[text] for m in self._scoped.values() if text in m}
        return names.pop() if len(names) == 1 else None

    def names(self) -> list[str]:
        """Canonical names, in table order, each once."""
        return list(dict.fromkeys(s.name for s in self.specs))

    def form_factors(self, name: str) -> list[str]:
        """The form factors the table has for a canonical name (``["SXM", "PCIe"]`` for H100)."""
        return list(dict.fromkeys(s.form_factor for s in self.specs if s.name == name))

    def spec(self, name: str, form_factor: str | None = None) -> GpuSpec | None:
        """The spec row for a canonical name, preferring ``form_factor`` when given (``SXM``, ``PCIe``)."""
        rows = [s for s in self.specs if s.name == name]
        if form_factor:
            rows = [s for s in rows if s.form_factor == form_factor] or rows
        return rows[0] if rows else None

    def resolve(self, raw: str, memory_gib: float | None = None, provider: str | None = None) -> GpuSpec | None:
        """Map any provider spelling to a spec row, or None when it is not a GPU the table knows.

        Args:
            raw: the provider's GPU name or description, e.g. ``"Tesla V100-SXM2-16GB"``, ``"H100_NVLINK_80GB"``,
                ``"nvidia-a100-80gb"``, ``"A100 (80 GB SXM4)"``.
            memory_gib: memory per GPU the provider reported, used to tell variants apart (A100 40 vs 80 GiB)
                when the spelling itself has no size. A size written in the spelling wins over everything.
            provider: the provider whose spelling this is: its own plugin's aliases apply, no other plugin's.
        """
        text = _normalize(raw)
        if not text:
            return None
        form = _form_hint(text) or _form_hint(raw.lower())
        mem_match = _MEMORY_RX.search(text)
        written = float(mem_match.group(1)) if mem_match else None
        alias, pinned = self._alias_for(text, provider)
        if alias is not None:
            spec = self.spec(alias, form)
            # An alias wins unless a memory figure says it is another variant: one written in the spelling
            # always does; a reported one does unless the provider's own plugin pinned the spelling.
            if spec is not None and (written is None or _near(written, spec.memory_gib)) and (
                    memory_gib is None or pinned or _near(memory_gib, spec.memory_gib)):
                return spec
        key = next((k for k, rx in _compiled() if rx.search(text)), None)
        if key is None:
            return None
        mem = written if written is not None else memory_gib
        name = key
        if re.search(r"\bnvl\b", text) and key in _NVL_VARIANTS:
            name = _NVL_VARIANTS[key]
        elif mem is not None:
            name = _variant(key, mem) or key
        if name not in self.names():
            return None
        return self.spec(name, form)

    def to_gpu(self, raw: str, memory_gib: float | None = None, provider: str | None = None) -> Gpu:
        """A :class:`Gpu` for a provider spelling: canonical when known, else ``known=False`` with the raw name.

        ``memory_gib`` (per GPU) fills in the memory of an unknown GPU; a known GPU always carries the table's
        marketed memory (AWS reports an L4 as 22888 MiB; it is sold, and carried here, as 24 GiB). ``provider``
        as in :meth:`resolve`.
        """
        spec = self.resolve(raw, memory_gib, provider)
        if spec is not None:
            gpu = spec.to_gpu(raw_name=raw)
            if (_form_hint(_normalize(raw)) or _form_hint(raw.lower())) is None \
                    and self.form_factors(spec.name) != [spec.form_factor]:
                # The spelling does not say SXM or PCIe and the model comes in both: do not guess.
                gpu = gpu.model_copy(update={"form_factor": None})
            return gpu
        from decimal import Decimal

        from gpuhub.model import Gpu

        mem = Decimal(str(memory_gib)) if memory_gib else None
        return Gpu(name=raw.strip() or "unknown", memory_gib=mem, raw_name=raw, known=False)

    def lookup(self, user_name: str) -> str:
        """Resolve a name a user typed (canonical or alias, any case) to one canonical name.

        Raises:
            UnknownGpuError: the name does not resolve; the error lists the closest known names.
        """
        return self.lookup_form(user_name)[0]

    def lookup_form(self, user_name: str) -> tuple[str, str | None]:
        """Like :meth:`lookup`, plus the form factor the user asked for (``"H100 PCIe"`` → ``("H100", "PCIe")``).

        Stricter than :meth:`resolve` (which reads providers' free text): every word must be understood, so
        ``"H100 maybe"`` is an error rather than an H100; a bare size after the model picks the variant
        (``a100-80`` → ``A100-80GB``, ``v100-32`` → ``V100-32GB``).

        Raises:
            UnknownGpuError: the name does not resolve; the error lists the closest known names.
        """
        exact = {n.lower(): n for n in self.names()}
        if user_name.strip().lower() in exact:
            return exact[user_name.strip().lower()], None
        text = _normalize(user_name)
        # Only an explicit SXM or PCIe asks for one form; NVLink/Mega in a provider's label are not a request.
        form = "SXM" if re.search(r"\bsxm\d?\b", text) else "PCIe" if re.search(r"\bpcie\b", text) else None
        alias = self._user_alias(text)
        if alias is not None:
            return alias, form if form in self.form_factors(alias) else None
        unknown = UnknownGpuError(user_name, self._close(user_name), self.names())
        found = next(((k, m) for k, rx in _compiled() if (m := rx.search(text))), None)
        if found is None:
            raise unknown
        key, match = found
        memory: float | None = None
        for token in (text[: match.start()] + " " + text[match.end():]).split():
            size = re.fullmatch(r"(\d{1,3})(?:gb|gib|g)?", token)
            if size and (_variant(key, float(size.group(1))) or key) and memory is None:
                memory = float(size.group(1))
            elif token not in _FORM_WORDS and token not in _NOISE and token != "x":
                raise unknown
        spec = self.resolve(f"{key} {int(memory)}gb" if memory is not None else key)
        if spec is None or (memory is not None and abs(spec.memory_gib - memory) > 0.5):
            raise unknown
        return spec.name, form if form in self.form_factors(spec.name) else None

    def is_gpu(self, name: str) -> bool:
        """False for table entries that are accelerators but not GPUs (AWS Trainium/Inferentia)."""
        spec = self.spec(name)
        return spec.is_gpu if spec else True

    def _close(self, name: str) -> list[str]:
        names = self.names()
        by_lower = {n.lower(): n for n in names}
        hits = difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.5)
        return [by_lower[h] for h in hits]


def _near(memory_gib: float, marketed_gib: float) -> bool:
    """True when a reported memory figure is the marketed size, give or take 15 % (MiB rounding, reserved)."""
    return abs(memory_gib - marketed_gib) <= 0.15 * marketed_gib


def _variant(key: str, mem: float) -> str | None:
    options = [(m, n) for (k, m), n in _MEMORY_VARIANTS.items() if k == key]
    if not options:
        return None
    return min(options, key=lambda o: abs(o[0] - mem))[1]


def _float(text: str) -> float | None:
    return float(text) if text.strip() else None


def load_builtin_specs() -> list[GpuSpec]:
    """Read the packaged GPU table (``gpuhub/data/gpus.csv``)."""
    rows: list[GpuSpec] = []
    for r in read_csv("gpus.csv"):
        rows.append(GpuSpec(
            name=r["name"], vendor=r["vendor"], form_factor=r["form_factor"], memory_gib=float(r["memory_gib"]),
            model=r["model"], architecture=r["architecture"] or None,
            memory_bandwidth_gb_s=_float(r["memory_bandwidth_gb_s"]), fp64_tflops=_float(r["fp64_tflops"]),
            fp32_tflops=_float(r["fp32_tflops"]), tf32_tflops=_float(r["tf32_tflops"]),
            fp16_tflops=_float(r["fp16_tflops"]), bf16_tflops=_float(r["bf16_tflops"]),
            fp8_tflops=_float(r["fp8_tflops"]), tdp_w=_float(r["tdp_w"]), interconnect=r["interconnect"] or None,
            mig_support=r["mig_support"] == "yes", aliases=tuple(a for a in r["aliases"].split("|") if a),
            source=r["source"], is_gpu=r["vendor"] not in _NON_GPU_VENDORS,
        ))
    return rows
