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

Behind a front proxy (nginx terminating TLS, deploy/nginx-course.conf), every
request reaches the proxy from the front's address, so the proxy's entry names
the front, for the whole class. A front proxy the hub trusts (``hub.py init
--front-proxy``, passed to every process that names clients in
:data:`FRONT_VARIABLE`) appends its own client's address before it, as nginx's
``$proxy_add_x_forwarded_for`` does: when the proxy's entry names a trusted
front, the client is the entry just before it, if that is an address, else the
front itself. One hop only: the entries before the front's are the sender's own
words.
"""

from __future__ import annotations

import functools
import ipaddress
import os

__all__ = ["FRONT_VARIABLE", "JOINED", "PROXY", "client", "describe", "front_proxies",
           "front_variables", "joined_from", "key"]

#: The addresses the proxy connects from: only on its connections does the last entry
#: of ``X-Forwarded-For`` name the client.
PROXY = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
#: The block of the machine's loopback whose addresses the hub's joins connect from,
#: one address per user (:func:`joined_from`); 127.0.0.1 is outside it.
JOINED = ipaddress.ip_network("127.128.0.0/9")
#: The variable that names the trusted front proxies' addresses (comma-separated) to
#: every process that names clients: the hub, its services, the users' servers and
#: the proxy's limits (deploy/proxy_clients.js).
FRONT_VARIABLE = "KERNEL_COURSE_FRONT_PROXIES"


def _address(text):
    """``text`` as an IP address (an IPv4 address seen as IPv6, ::ffff:a.b.c.d, as
    itself), or None."""
    try:
        parsed = ipaddress.ip_address(text.strip().split("%")[0])
    except ValueError:
        return None
    if parsed.version == 6 and parsed.ipv4_mapped is not None:
        return parsed.ipv4_mapped
    return parsed


def front_proxies(addresses):
    """The trusted front proxies' ``addresses`` (``hub.py init --front-proxy``),
    checked: a sorted list of the addresses in their usual form. ValueError, naming
    the address, for one that is not an IP address, or one a front cannot be told
    apart at: the proxy's (the hub's own processes connect from it) or a user's
    server's (:data:`JOINED`)."""
    found = set()
    for text in addresses:
        parsed = _address(str(text)) if "%" not in str(text) else None
        if parsed is None:
            raise ValueError(f"{text!r} is not an IP address")
        if str(parsed) in PROXY:
            raise ValueError(
                f"{text} is the address the hub's own processes reach the proxy from: "
                "have the front proxy connect from an address of its own (nginx's "
                "proxy_bind 127.0.0.2) and name that one")
        if parsed.is_unspecified or parsed.is_multicast:
            raise ValueError(f"{text} is not the address of a host")
        if parsed in JOINED:
            raise ValueError(f"{text} is in {JOINED}, the addresses of the users' servers")
        found.add(str(parsed))
    return sorted(found, key=lambda a: (ipaddress.ip_address(a).version,
                                        ipaddress.ip_address(a).packed))


def front_variables(addresses):
    """The variables that tell a process the trusted front proxies (``addresses``,
    checked by :func:`front_proxies`): {} when there are none."""
    checked = front_proxies(addresses or ())
    return {FRONT_VARIABLE: ",".join(checked)} if checked else {}


@functools.lru_cache(maxsize=8)
def _fronts(text):
    return frozenset(a for a in map(_address, text.split(",")) if a is not None)


def _trusted_fronts():
    """The trusted front proxies' addresses, from :data:`FRONT_VARIABLE`."""
    return _fronts(os.environ.get(FRONT_VARIABLE, ""))


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
    """The last two entries of ``X-Forwarded-For`` in ``headers`` (the one before the
    proxy's, if any, and the proxy's): [] when there is none."""
    text = headers.get("X-Forwarded-For", "")
    return [entry.strip()[:64] for entry in text.rsplit(",", 2)[-2:]] if text.strip() else []


def _named(peer, headers):
    """(the client, the trusted front proxy it came through or None) of a request
    from ``peer`` with ``headers``."""
    if peer not in PROXY:
        return peer, None
    entries = _forwarded(headers)
    if not entries or not entries[-1]:
        return peer, None
    last = entries[-1]
    front = _address(last)
    if front is None or front not in _trusted_fronts():
        return last, None
    before = _address(entries[-2]) if len(entries) > 1 else None
    # nothing before the front's entry, or words that are no address: the front
    # itself, which then counts as one client
    return (str(before) if before is not None else last), last


def client(connection, headers):
    """The address of the client of a request (a Tornado ``connection`` and the
    request's ``headers``): the proxy's last ``X-Forwarded-For`` entry on the
    proxy's connections, or the entry before it when the last is a trusted front
    proxy's; the connection's own address on any other."""
    return _named(_peer(connection), headers)[0]


def key(connection, headers):
    """What limits per client count a request's client by: its address
    (:func:`client`), an IPv6 address by its /64."""
    address = client(connection, headers)
    parsed = _address(address)
    if parsed is None:
        return address
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


def describe(connection, headers):
    """A request's client for a log line: the connection's address and, quoted, the
    last ``X-Forwarded-For`` entry when there is one (which names the client only
    on the proxy's connections), or the entry before it and the trusted front
    proxy that appended it."""
    peer = _peer(connection)
    entries = _forwarded(headers)
    if not entries or not entries[-1]:
        return peer
    named, front = _named(peer, headers)
    if front is not None and named != front:
        return f"{named!r} (X-Forwarded-For, by the front proxy {front}) over {peer}"
    return f"{entries[-1]!r} (X-Forwarded-For) over {peer}"
