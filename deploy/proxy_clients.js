// What the proxy's limits count a client by (proxy_connections.js,
// proxy_stalled_writes.js): its address, an IPv6 address by its /64 (the block one
// host is given, and may fill with addresses of its own), an IPv4 address the proxy
// sees as IPv6 (::ffff:a.b.c.d) as itself. And whether an address is a trusted
// front proxy's (hub.py init --front-proxy, in KERNEL_COURSE_FRONT_PROXIES, which
// clients.py names and checks): one front carries the whole class, so the caps per
// address leave it to the front's own limits (deploy/nginx-course.conf), except
// where a front's connection is known by the client it carries (clientOfRequest).
"use strict";

const net = require("net");

const FRONT_VARIABLE = "KERNEL_COURSE_FRONT_PROXIES";

// The eight groups of an IPv6 address (a.b.c.d at its end counts as two), as
// written; an IPv4 address (or one seen as IPv6) as itself, a string.
function groupsOf(address) {
  const bare = address.trim().split("%")[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1];
  if (!bare.includes(":")) return bare;
  const [head, tail] = bare.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const width = (groups) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  return tail === undefined ? left
    : [...left, ...Array(Math.max(0, 8 - width(left) - width(right))).fill("0"), ...right];
}

function clientOf(address) {
  const groups = groupsOf(address);
  if (typeof groups === "string") return groups;
  return groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":") + "::/64";
}

// An address in one form whatever way it is written: IPv4 as is, IPv6 in full.
function canonical(address) {
  const groups = groupsOf(address);
  if (typeof groups === "string") return groups;
  return groups.map((g) => (g.includes(".") ? g : parseInt(g, 16).toString(16))).join(":");
}

const fronts = new Set((process.env[FRONT_VARIABLE] || "").split(",")
  .map((a) => a.trim()).filter(Boolean).map(canonical));

function isFrontProxy(address) {
  return Boolean(address) && fronts.has(canonical(address));
}

// The client a request on a trusted front proxy's connection is from: the last
// address of its X-Forwarded-For, the one the front appends (nginx's
// $proxy_add_x_forwarded_for: the address it was connected from, which no client
// writes), or null when there is none. A client's own X-Forwarded-For comes before it.
function frontsClient(req) {
  const named = String(req.headers["x-forwarded-for"] || "").split(",").pop().trim();
  return net.isIP(named) ? clientOf(named) : null;
}

module.exports = { clientOf, fronts, frontsClient, isFrontProxy };
