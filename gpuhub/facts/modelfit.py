"""Model fit: the GPU memory a model needs, for inference, parameter-efficient fine-tuning or full training.

Formulas (P = parameters, b = bytes per parameter at the precision: fp32/tf32 4, bf16/fp16 2, fp8/int8 1,
int4/fp4 0.5):

- ``inference``: weights P×b, plus 20 % of the weights for the KV cache and activations. The 1.2× rule of thumb is
  from EleutherAI, "Transformer Math 101" (2023), section "Inference"; long contexts or large batches need more.
- ``fine-tuning`` (parameter-efficient, LoRA-style): frozen weights P×b, plus trainable adapters taken as 1 % of
  P with 16 bytes each (weights, gradients and Adam states; LoRA adapters are well under 1 % of the weights in
  Hu et al., "LoRA", 2021), plus 20 % of the weights for activations.
- ``training`` (full, mixed precision with Adam): per parameter b (weights) + b (gradients) + 4 (fp32 master
  copy, when b < 4) + 8 (Adam first and second moments in fp32), i.e. 16 bytes at bf16 ("Transformer Math 101",
  section "Training"; Rajbhandari et al., "ZeRO", 2020, section 3.1), plus 20 % of that for activations (an
  allowance: activation memory depends on batch size, sequence length and checkpointing).

How the GPUs of one instance share the model:

- ``inference`` splits it by tensor parallelism, whose degree must divide the model's attention heads (vLLM's
  ``tensor_parallel_size``; Llama 2/3 70B have 64 heads, 8B 32, 405B 128): serving engines take 1, 2, 4 or 8 GPUs
  for one copy, so a 10-GPU instance serves a copy on 8 of them and a 6-GPU one on 4
  (:func:`tensor_parallel_gpus`). A 7 × 24 GiB instance holds 96 GiB of one copy, not 168.
- ``fine-tuning`` and ``training`` shard weights, gradients and optimizer states over every GPU (ZeRO-3, FSDP):
  all the instance's VRAM counts.

Memory is reported in GiB (2^30 bytes), the unit the offers use. 70 B parameters in BF16 are 140 GB = 130.4 GiB
of weights alone: no single 80 GiB GPU holds them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gpuhub.errors import QueryError

__all__ = ["BYTES_PER_PARAMETER", "MODES", "ModelFit", "model_fit", "parse_parameters", "tensor_parallel_gpus"]

BYTES_PER_PARAMETER = {"fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0,
                       "int4": 0.5, "fp4": 0.5}
MODES = ("inference", "fine-tuning", "training")
GIB = 2**30
ALLOWANCE = 0.20
ADAPTER_FRACTION = 0.01


@dataclass(frozen=True)
class ModelFit:
    """The memory a model needs, in GiB, with its parts and the formula used."""

    parameters: float
    precision: str
    mode: str
    weights_gib: float
    training_state_gib: float
    allowance_gib: float

    @property
    def total_gib(self) -> float:
        """Everything the GPUs must hold together, GiB."""
        return self.weights_gib + self.training_state_gib + self.allowance_gib

    def gpus_needed(self, vram_per_gpu_gib: float) -> int:
        """How many GPUs of this size the model must be split across (1 when it fits on one); for inference a
        tensor-parallel degree, so a power of two (see the module docstring)."""
        if vram_per_gpu_gib <= 0:
            return 0
        needed = max(1, math.ceil(self.total_gib / vram_per_gpu_gib - 1e-9))
        return 1 << (needed - 1).bit_length() if self.mode == "inference" else needed

    def describe(self) -> str:
        """One line, e.g. ``70B bf16 inference: 156.5 GiB (weights 130.4 + 20 % allowance 26.1)``."""
        parts = f"weights {self.weights_gib:.1f}"
        if self.training_state_gib:
            what = "adapters and their optimizer" if self.mode == "fine-tuning" else "gradients and Adam states"
            parts += f" + {what} {self.training_state_gib:.1f}"
        parts += f" + 20 % allowance {self.allowance_gib:.1f}"
        return f"{_label(self.parameters)} {self.precision} {self.mode}: {self.total_gib:.1f} GiB ({parts})"


def tensor_parallel_gpus(gpu_count: float) -> float:
    """How many of an instance's ``gpu_count`` GPUs one served copy of a model can use: the largest power of two
    not above it (1, 2, 4, 8, 16; see the module docstring); a fraction of one GPU (a slice) as it is."""
    if gpu_count < 1:
        return gpu_count
    return float(1 << (int(gpu_count).bit_length() - 1))


def _label(parameters: float) -> str:
    if parameters >= 1e9:
        return f"{parameters / 1e9:g}B"
    return f"{parameters / 1e6:g}M"


def parse_parameters(value: str | float | int) -> float:
    """Parameters from ``"70b"``, ``"7B"``, ``"1.5b"``, ``"350m"``, ``"7e9"`` or a number.

    Raises:
        QueryError: not a positive parameter count.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmbt]?)\s*(?:params|parameters)?\s*", str(value).lower())
        if not match:
            raise QueryError("model", f"{value!r} is not a parameter count; write e.g. 70b, 7B, 1.5b, 350m or 7e9")
        scale = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}[match.group(2)]
        number = float(match.group(1)) * scale
        if not match.group(2) and number < 1e6:  # "70" is not 70 parameters: a unit was left out
            raise QueryError("model", f"{value!r} has no unit: write e.g. {match.group(1)}b (billions) or "
                                      f"{match.group(1)}m (millions), or the full count such as 7e9")
    if not math.isfinite(number) or number <= 0:
        raise QueryError("model", f"{value!r} must be a positive parameter count")
    return number


def model_fit(parameters: str | float | int, precision: str = "bf16", mode: str = "inference") -> ModelFit:
    """The VRAM a model needs; see the module docstring for the formulas and their sources.

    Args:
        parameters: parameter count, e.g. ``"70b"`` or ``7e9``.
        precision: one of :data:`BYTES_PER_PARAMETER` (``bf16`` default).
        mode: ``inference``, ``fine-tuning`` or ``training``.

    Raises:
        QueryError: an argument is not one of the allowed values.
    """
    count = parse_parameters(parameters)
    precision = precision.lower()
    if precision not in BYTES_PER_PARAMETER:
        raise QueryError("precision", f"{precision!r} is not allowed; allowed values: {', '.join(BYTES_PER_PARAMETER)}")
    mode = mode.lower().replace("_", "-")
    if mode == "finetuning":
        mode = "fine-tuning"
    if mode not in MODES:
        raise QueryError("mode", f"{mode!r} is not allowed; allowed values: {', '.join(MODES)}")
    b = BYTES_PER_PARAMETER[precision]
    weights = count * b
    if mode == "inference":
        state = 0.0
        allowance = ALLOWANCE * weights
    elif mode == "fine-tuning":
        state = count * ADAPTER_FRACTION * 16
        allowance = ALLOWANCE * weights
    else:
        state = count * (b + (4 if b < 4 else 0) + 8)
        allowance = ALLOWANCE * (weights + state)
    return ModelFit(count, precision, mode, weights / GIB, state / GIB, allowance / GIB)
