"""Stand-in: aiodocker.containers.DockerContainer, what the Backend.AI docker agent keeps
as a Container's backend_obj (ai.backend.agent.docker.agent: container_from_docker_container
passes the DockerContainer it listed or inspected).

Mirrors aio-libs/aiodocker, aiodocker/containers.py at commit
0b05fd7f1f87df7b96b3c8748c5db3ce8980d230: built from the engine's inspect data (kwargs into
_container), an id from "id", "ID" or "Id" (ValueError without), `id`, and __getitem__ over
the data; it is NOT a Mapping (no get, keys, items, iteration or len), so code that wants a
Mapping gets nothing from it, as from the real one. show() refreshes _container; here it
returns the data it was made with (no engine)."""
from __future__ import annotations

from typing import Any


class DockerContainer:
    def __init__(self, docker: Any, **kwargs: Any) -> None:
        self.docker = docker
        self._container = kwargs
        _id = self._container.get("id", self._container.get("ID", self._container.get("Id")))
        if _id is None:
            raise ValueError("DockerContainer should be initialized with explicit container ID.")
        self._id = _id

    @property
    def id(self) -> str:
        return self._id

    async def show(self, **kwargs: Any) -> dict[str, Any]:
        return self._container

    def __getitem__(self, key: str) -> Any:
        return self._container[key]

    def __hasitem__(self, key: str) -> bool:
        return key in self._container
