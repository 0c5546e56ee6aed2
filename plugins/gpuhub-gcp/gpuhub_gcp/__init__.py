"""gpuhub provider plugin for Google Cloud (Compute Engine GPU VMs priced per component)."""

from gpuhub_gcp.provider import GcpProvider

__all__ = ["GcpProvider"]
