// What the proxy's limits count a client by (proxy_connections.js,
// proxy_stalled_writes.js): its address, an IPv6 address by its /64 (the block one
// host is given, and may fill with addresses of its own), an IPv4 address the proxy
// sees as IPv6 (::ffff:a.b.c.d) as itself.
"use strict";

function clientOf(address) {
  const bare = address.split("%")[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1];
  if (!bare.includes(":")) return bare;
  const [head, tail] = bare.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const width = (groups) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups = tail === undefined ? left
    : [...left, ...Array(Math.max(0, 8 - width(left) - width(right))).fill("0"), ...right];
  return groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":") + "::/64";
}

module.exports = { clientOf };
