"""This machine as a vantage point: its name and its non-loopback interface addresses.

Read from the kernel (``/proc``), never through DNS, which may hang: a report says where it was
made even when the resolver is the problem.
"""

from __future__ import annotations

import ipaddress
import socket


def hostname() -> str:
    return socket.gethostname()


def interface_addresses() -> list[str]:
    """Non-loopback IPv4 addresses, then global-scope IPv6 addresses (Linux; elsewhere none)."""
    addresses: list[str] = []
    try:  # Linux: IPv4 from the kernel's FIB view, IPv6 from /proc/net/if_inet6
        with open("/proc/net/fib_trie", encoding="ascii") as handle:
            lines = handle.read().splitlines()
        for previous, line in zip(lines, lines[1:]):
            if line.strip() == "/32 host LOCAL":
                address = previous.split()[-1]
                if not address.startswith("127.") and address not in addresses:
                    addresses.append(address)
        with open("/proc/net/if_inet6", encoding="ascii") as handle:
            for row in handle:
                raw, _idx, _plen, scope = row.split()[:4]
                if scope == "00":  # global scope only
                    addresses.append(str(ipaddress.IPv6Address(bytes.fromhex(raw))))
    except (OSError, ValueError):
        pass
    return addresses
