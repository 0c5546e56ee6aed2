"""gpuhub-aws: AWS EC2 GPU and accelerator offers for gpuhub.

On-demand and reserved prices come from the public EC2 offer files (streamed), spot prices per availability zone
from ``DescribeSpotPriceHistory``, specs from ``DescribeInstanceTypes`` or the bundled spec table.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
