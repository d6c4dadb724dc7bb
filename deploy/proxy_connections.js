// A cap on the connections one client (proxy_clients.js: an address, an IPv6 /64)
// has open at the proxy at once (applied to configurable-http-proxy's servers by
// proxy_limits.js). A trusted front proxy's address is not capped: it carries the
// whole class, and the front's own cap per client address takes this one's place
// (deploy/nginx-course.conf).
//
// Each connection costs the proxy a descriptor, another for its connection to the
// server, and memory; with no cap, one address opening connections that send
// nothing (or half a request) as fast as they are closed took the proxy to its
// open-file limit, and then every other client's connection was refused: the whole
// class shut out, with no login. Beyond the cap, a new connection of that address
// is reset as it is accepted, before it is read or costs a connection to a server.
//
// A connection counts until its descriptor is closed, not until Node lets go of it:
// proxy_stalled_writes.js keeps a connection Node has closed open while its client
// still has bytes to take.
"use strict";

const { clientOf, fronts, isFrontProxy } = require("./proxy_clients.js");
const { PerAddressLog, log, shortened } = require("./proxy_log.js");

// A class behind one NAT address must fit: a JupyterLab tab holds 5 to 10
// connections and websockets, so 1000 is 100 to 200 tabs at once; it costs the
// proxy about 2000 descriptors an address, a small part of the open files the hub
// gives it (fs.nr_open, 1,048,576 by default: open_files.py).
const PER_ADDRESS = 1000;

const perAddress = Math.floor(
  shortened("KERNEL_COURSE_PROXY_CONNECTIONS_PER_ADDRESS", PER_ADDRESS));
const open = new Map();   // client -> connections open
const refused = new PerAddressLog((address, total, reasons, again) =>
  `refused ${total} new connection${total === 1 ? "" : "s"} of ${address}` +
  (again ? " since the last line" : "") +
  `: it had ${perAddress} open at once, the most one address may`);
let timer = null;
let announced = false;

function release(client) {
  const n = (open.get(client) || 1) - 1;
  if (n > 0) open.set(client, n);
  else open.delete(client);
}

// The socket's handle is Node's own (socket._handle): Node has no public way to
// know when a connection's descriptor is closed (see proxy_stalled_writes.js).
function admit(socket) {
  const handle = socket._handle;
  if (!handle || !socket.remoteAddress || isFrontProxy(socket.remoteAddress)) return;
  const client = clientOf(socket.remoteAddress);
  const n = open.get(client) || 0;
  if (n >= perAddress) {
    // a reset, not a close: no TIME-WAIT left at the proxy for it
    if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
    else socket.destroy();
    refused.add(client, "refused at once");
    return;
  }
  open.set(client, n + 1);
  // Node closes a connection's descriptor through its handle's close(), or reset()
  // for SO_LINGER 0; whichever comes first releases it, once
  let released = false;
  for (const method of ["close", "reset"]) {
    const original = handle[method];
    if (typeof original !== "function") continue;
    handle[method] = function (...args) {
      if (!released) {
        released = true;
        release(client);
      }
      return original.apply(this, args);
    };
  }
  if (!timer) {
    // what was held back from the log, once its minute is up
    timer = setInterval(() => refused.flush(), 5000);
    timer.unref();
  }
}

function capConnections(server) {
  if (!announced) {
    announced = true;
    log(`at most ${perAddress} connections open at once per address; beyond them a new ` +
        "one is reset as it is accepted" +
        (fronts.size ? `; not capped: the trusted front proxies' (${[...fronts].join(", ")})`
          : ""));
  }
  // after the server's own listener, which reads nothing of the connection before
  // the next turn of the event loop; and before proxy_stalled_writes.js's (proxy_limits.js)
  server.on("connection", admit);
}

module.exports = { capConnections };
