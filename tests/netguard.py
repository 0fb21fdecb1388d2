"""A socket guard for tests: any connection to a non-loopback address fails (and is recorded)."""

from __future__ import annotations

import ipaddress
import socket


class NetGuard:
    """Patch ``socket.socket.connect``/``connect_ex`` and ``socket.create_connection`` via monkeypatch."""

    def __init__(self, monkeypatch) -> None:
        self.seen: list[object] = []
        self.blocked: list[object] = []
        real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
        real_create = socket.create_connection
        guard = self

        def connect(sock, address):
            guard._check(address)
            return real_connect(sock, address)

        def connect_ex(sock, address):
            guard._check(address)
            return real_connect_ex(sock, address)

        def create_connection(address, *args, **kwargs):
            guard._check(address)
            return real_create(address, *args, **kwargs)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
        monkeypatch.setattr(socket, "create_connection", create_connection)

    @staticmethod
    def is_local(address) -> bool:
        """Unix sockets and loopback addresses are local."""
        if isinstance(address, (str, bytes)):
            return True
        host = address[0]
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    def _check(self, address) -> None:
        self.seen.append(address)
        if not self.is_local(address):
            self.blocked.append(address)
            raise OSError(f"network guard: connection to {address} refused (nothing may leave the machine)")
