"""Issue 7's fact on the bundled recording: p5.48xlarge in us-east-1 at 55.04 USD/h on demand costs
55.04 / (8 × 989.5) = 0.006953 USD per dense BF16 TFLOP-hour (H100 SXM figures: the P5 family is SXM on NVSwitch)."""

from __future__ import annotations

import gpuhub
from gpuhub.plugin import make_engine


def test_p5_price_per_bf16_tflop_hour() -> None:
    engine = make_engine(gpuhub.Registry())
    result = gpuhub.search(instance_type=["p5.48xlarge", "p4d.24xlarge"], region="us-east-1", purchase="on_demand",
                           provider="aws", engine=engine, fetch="replay", sort="training")
    by_type = {o.instance_type: i for i, o in enumerate(result)}
    p5 = result[by_type["p5.48xlarge"]]
    assert str(p5.price_per_hour.normalize()) == "55.04"
    assert p5.instance.gpu is not None and p5.instance.gpu.form_factor == "SXM"
    assert p5.instance.interconnect == "NVSwitch"
    assert round(result.details(by_type["p5.48xlarge"])["usd_per_bf16_tflop_hour"], 6) == 0.006953
    # p4d: 21.957642 / (8 × 312) = 0.008797; the training preset ranks the p5 first.
    assert round(result.details(by_type["p4d.24xlarge"])["usd_per_bf16_tflop_hour"], 6) == 0.008797
    assert [o.instance_type for o in result] == ["p5.48xlarge", "p4d.24xlarge"]
