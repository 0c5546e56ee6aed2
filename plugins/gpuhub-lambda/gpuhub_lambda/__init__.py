"""gpuhub-lambda: Lambda Cloud GPU instance types and on-demand prices for gpuhub.

Live data comes from Lambda's ``GET /api/v1/instance-types`` (``LAMBDA_API_KEY``); without a key the bundled
recording, reconstructed from the SkyPilot catalog's published Lambda prices, replays.
"""

from __future__ import annotations

from gpuhub_lambda.provider import LambdaProvider

__all__ = ["LambdaProvider", "__version__"]

__version__ = "0.1.0"
