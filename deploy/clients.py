"""Who sent a request to one of the course's servers, as far as it can tell.

Every request reaches the hub, its services and the users' servers over the
machine's loopback, in one of two ways:

- through the proxy, which appends to ``X-Forwarded-For`` the address its
  client connected from (the earlier entries are the client's own words);
- from a student's server, through the hub's join of her network namespace
  (``server_network.py``), which connects from an address of her own on the
  machine's loopback (:func:`joined_from`), the same for every connection of
  her server and no one else's.

A client that does not come through the proxy writes all of
``X-Forwarded-For`` itself, so the header names the client only on the proxy's
connections (:data:`PROXY`; the machine's own processes, the hub and the
instructors' servers, connect from there too and are trusted alike). Limits
per client (:func:`key`) count an IPv6 client by its /64, the block a single
host is given and may fill with addresses of its own.
"""

from __future__ import annotations

import ipaddress

__all__ = ["JOINED", "PROXY", "describe", "joined_from", "key"]

#: The addresses the proxy connects from: only on its connections does the last entry
#: of ``X-Forwarded-For`` name the client.
PROXY = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
#: The block of the machine's loopback whose addresses the hub's joins connect from,
#: one address per user (:func:`joined_from`); 127.0.0.1 is outside it.
JOINED = ipaddress.ip_network("127.128.0.0/9")


def joined_from(uid):
    """The machine-loopback address the hub's joins for the server of Unix user
    ``uid`` connect from: one of :data:`JOINED`, neither its first nor its last."""
    if not isinstance(uid, int) or isinstance(uid, bool) or uid < 0:
        raise ValueError(f"uid must be a Unix user id (an int >= 0), not {uid!r}")
    return str(JOINED.network_address + 1 + uid % (JOINED.num_addresses - 2))


def _peer(connection):
    """The address a Tornado request's connection came from (before any
    ``X-Forwarded-For`` is applied), or ``"?"``."""
    address = getattr(getattr(connection, "context", None), "address", None)
    if isinstance(address, tuple) and address:
        return str(address[0])
    return "?"


def _forwarded(headers):
    """The last entry of ``X-Forwarded-For`` in ``headers`` (the proxy's), or ''."""
    return headers.get("X-Forwarded-For", "").split(",")[-1].strip()


def client(connection, headers):
    """The address of the client of a request (a Tornado ``connection`` and the
    request's ``headers``): the proxy's last ``X-Forwarded-For`` entry on the
    proxy's connections, the connection's own address on any other."""
    peer = _peer(connection)
    if peer in PROXY:
        return _forwarded(headers)[:64] or peer
    return peer


def key(connection, headers):
    """What limits per client count a request's client by: its address
    (:func:`client`), an IPv6 address by its /64."""
    address = client(connection, headers)
    try:
        parsed = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if parsed.version == 6:
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def describe(connection, headers):
    """A request's client for a log line: the connection's address and, quoted, the
    last ``X-Forwarded-For`` entry when there is one (which names the client only
    on the proxy's connections)."""
    peer = _peer(connection)
    forwarded = _forwarded(headers)
    if forwarded:
        return f"{forwarded[:64]!r} (X-Forwarded-For) over {peer}"
    return peer
