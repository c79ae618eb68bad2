"""Stand-in of aiodocker: only DockerContainer (aiodocker/containers.py)."""
from .containers import DockerContainer  # noqa: F401
