"""gpuhub-kubernetes: free GPUs and MIG slices of a team's Kubernetes clusters as gpuhub offers."""

from gpuhub_kubernetes.provider import KubernetesProvider

__all__ = ["KubernetesProvider"]
