"""Benchmark: stream a synthetic EC2 offer file of at least 1 GB through the gpuhub-aws parser.

Usage::

    python bench/aws_stream.py                 # 1 GB file in /tmp, removed afterwards
    python bench/aws_stream.py --size-mb 2048 --keep

The file is written by ``gpuhub_aws.synthetic.write_large_offer_file`` (the real bulk-file layout: products, then
``terms.OnDemand``, then ``terms.Reserved`` with 12 terms per product; 1 product in 50 a GPU type). It is then
served through an httpx transport in 1 MiB pieces and read exactly as a live fetch reads it:
``AwsProvider._offer_file`` -> the plugin's retrying ``stream()`` -> ``Response.iter_bytes`` ->
``OfferFileParser``. The parse runs in a child process so that its peak RSS is measured alone.

Reports: file size (MB, 10^6 bytes), wall time, throughput (MB/s), peak RSS of the parsing process (MB, 2^20
bytes; target < 300 MB whatever the file size), and what the parser kept.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

PIECE = 1 << 20


class _FileStream(httpx.SyncByteStream):
    def __init__(self, path: Path) -> None:
        self.path = path

    def __iter__(self) -> Iterator[bytes]:
        with open(self.path, "rb") as fh:
            while piece := fh.read(PIECE):
                yield piece


def parse(path: Path) -> dict[str, object]:
    """Stream ``path`` through the provider's offer-file path; return the measurements."""
    from gpuhub_aws.provider import AwsProvider

    from gpuhub.fetch.plugins import Registry
    from gpuhub.fetch.provider import ProviderContext
    from gpuhub.model import Source

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=_FileStream(path), headers={"content-type": "application/json"})

    provider = AwsProvider()
    client = httpx.Client(transport=httpx.MockTransport(serve))
    ctx = ProviderContext(provider, client, mode="live", source=Source(mode="live"), gpus=Registry().gpus)
    started = time.perf_counter()
    result = provider._offer_file(ctx, "us-east-1")
    elapsed = time.perf_counter() - started
    size = path.stat().st_size
    return {"bytes": size, "seconds": round(elapsed, 2), "mb_per_s": round(size / 1e6 / elapsed, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "products_seen": result.products, "gpu_types_kept": len(result.prices),
            "filtered_accelerator_products": sum(result.filtered.values()),
            "malformed": sum(result.malformed.values())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=1024, help="file size to write, MiB (default 1024)")
    ap.add_argument("--keep", action="store_true", help="keep the generated file")
    ap.add_argument("--parse", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.parse:
        print(json.dumps(parse(args.parse)))
        return
    from gpuhub_aws.synthetic import write_large_offer_file

    path = Path(tempfile.gettempdir()) / f"gpuhub-aws-bench-offers-{args.size_mb}mb.json"
    started = time.perf_counter()
    written = write_large_offer_file(path, args.size_mb << 20)
    print(f"wrote {path}: {written['bytes'] / 1e6:.0f} MB, {written['products']} products "
          f"in {time.perf_counter() - started:.0f} s", flush=True)
    try:
        out = subprocess.run([sys.executable, __file__, "--parse", str(path)], check=True, capture_output=True,
                             text=True)
        figures = json.loads(out.stdout)
    finally:
        if not args.keep:
            path.unlink(missing_ok=True)
    print(json.dumps(figures, indent=1))
    print(f"throughput {figures['mb_per_s']} MB/s, peak RSS {figures['peak_rss_mb']} MB "
          f"({'under' if figures['peak_rss_mb'] < 300 else 'OVER'} the 300 MB target)")


if __name__ == "__main__":
    main()
