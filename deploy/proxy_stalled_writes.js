// A connection whose client takes nothing of what the proxy has for it is closed,
// and an address, and all addresses together, hold only a few such connections, or
// ones whose client takes less than a least rate, at once (applied to
// configurable-http-proxy's servers by proxy_limits.js).
//
// Each connection that asks the proxy for a large answer (a book page, the hub's
// static files: no login needed) and then reads nothing keeps what the kernel holds
// for it in the proxy's send buffer: measured here, 3.9 MB (tcp_wmem's largest,
// 4 MiB) in the proxy's socket, and as much again on the way from the server, with
// no time limit; a few hundred of them reach the machine's hard limit of TCP memory
// (net.ipv4.tcp_mem) and every TCP connection on the machine stalls. Closing such
// a connection gracefully does not free it: the kernel keeps the unsent bytes as an
// orphan, probing the closed window for minutes. So a stalled connection is reset
// (SO_LINGER 0), which frees its buffers at once; and a connection the proxy itself
// closes (its answer finished and kept alive 5 s, an error, the client's end) while
// the kernel still holds bytes its client has not taken stays open here, watched
// like the others, and is closed once they are taken (or reset once it stalls).
//
// "Stalled" is measured in the kernel: the bytes the client has acknowledged (all
// bytes handed to the kernel, less its send queue, /proc/net/tcp's tx_queue) have
// not grown. A slow honest reader (a phone on a bad link) acknowledges something
// every few seconds however slowly it reads, so it keeps its connection; and an
// honest browser's connections are never stalled for seconds.
//
// A client that reads a little every few seconds (64 KiB every 3 s) is never
// stalled, yet holds its send buffer as long as one that reads nothing: 40 such
// connections held 110 to 159 MB for one address, and about 270 reach tcp_mem's
// hard limit. So a connection also counts towards the caps while, with bytes
// waiting for it all along, it takes less than a least rate; beyond the caps the
// slowest are reset first. The cap on the connections an address has open at once
// is proxy_connections.js's, far above these: a class behind one NAT address has
// many open, and few slow.
//
// A trusted front proxy's address (proxy_clients.js) has no cap of its own: it
// carries the whole class. Each of its connections counts instead for the client
// its request names (the front's X-Forwarded-For entry: nginx opens a connection to
// the proxy for each request it passes on), so that one student behind the front
// cannot take every place of the bound in all, cutting her classmates' slow
// downloads; a front's connection that names no client counts for none, and the
// front's own timeouts per client take the cap's place for it
// (deploy/nginx-course.conf). Every connection is still reset once stalled, and
// counts towards the bound in all, which keeps the machine's TCP memory.
"use strict";

const fs = require("fs");
const { clientOf, fronts, frontsClient, isFrontProxy } = require("./proxy_clients.js");
const { PerAddressLog, log, shortened } = require("./proxy_log.js");

// A connection whose client has taken nothing for this long is reset: long enough
// for a phone in a tunnel, short enough that a flood of them is freed within a minute.
const STALL_SECONDS = 60;
// Stalled this long, a connection counts towards the caps below; honest browsers'
// connections are never stalled for seconds. And over this long, with bytes waiting
// for it all along, a connection that took less than LEAST_RATE counts too.
const COUNTED_AFTER_SECONDS = 5;
// An honest client takes what waits for it at its link's speed: 64 KiB/s is a
// link of half a megabit, slower than a phone's on a bad link; and only an address
// with more than PER_ADDRESS connections that slow at once loses any (a phone has
// one or two open with bytes waiting). A client reading 64 KiB every 3 s is counted.
const LEAST_RATE = 64 << 10;
// One address (clientOf) has at most this many counted connections; beyond it its
// slowest (those that took nothing, oldest stalled first) are reset: 16 × 8.35 MB
// (measured, both sides of an answer of 8 MB or more) ≈ 134 MB held for one
// address at most.
const PER_ADDRESS = 16;
// All addresses together have at most this many (oldest reset first), and never
// more than fit, at the largest two send buffers each (the proxy's to the client,
// the server's to the proxy), in half of tcp_mem's pressure threshold.
const IN_ALL = 256;
// How often connections are looked at; /proc/net/tcp is read only when some
// connection has bytes its client has not taken.
const TICK_MS = 1000;

const stallMs = 1000 * shortened("KERNEL_COURSE_PROXY_STALL_SECONDS", STALL_SECONDS);
const countedMs = 1000 * Math.min(
  shortened("KERNEL_COURSE_PROXY_STALL_COUNTED_SECONDS", COUNTED_AFTER_SECONDS), stallMs / 1000);
const inAll = Math.floor(shortened("KERNEL_COURSE_PROXY_STALLED_IN_ALL", fitInTcpMemory(IN_ALL)));

const watched = new Set();
// a client's reset connections, logged once a minute at most
const resets = new PerAddressLog((address, total, reasons, again) =>
  `reset ${total} connection${total === 1 ? "" : "s"} of ${address} that took nothing, ` +
  `or less than ${LEAST_RATE >> 10} KiB/s, of what the proxy had for them (${reasons})` +
  (again ? " since the last line" : ""));
const kernelQueues = canReadKernelQueues();
let timer = null;
let ticking = false;

function readNumbers(path) {
  return fs.readFileSync(path, "utf8").trim().split(/\s+/).map(Number);
}

function fitInTcpMemory(most) {
  try {
    // in pages of 4 KiB (Node does not say the page size; a larger one only
    // makes this bound safer)
    const pressurePages = readNumbers("/proc/sys/net/ipv4/tcp_mem")[1];
    const sendBuffer = readNumbers("/proc/sys/net/ipv4/tcp_wmem")[2];
    const fit = Math.floor((pressurePages * 4096) / 2 / (2 * sendBuffer));
    return Math.max(PER_ADDRESS, Math.min(most, fit));
  } catch (e) {
    return most;
  }
}

function canReadKernelQueues() {
  try {
    fs.readFileSync("/proc/net/tcp", "utf8");
    return true;
  } catch (e) {
    return false;
  }
}

function inodeOf(handle) {
  try {
    const link = fs.readlinkSync(`/proc/self/fd/${handle.fd}`);
    const m = /^socket:\[(\d+)\]$/.exec(link);
    return m ? m[1] : null;
  } catch (e) {
    return null;
  }
}

// tx_queue (bytes not yet acknowledged by the client) of every TCP socket, by inode.
async function sendQueues() {
  const queues = new Map();
  for (const path of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text;
    try {
      text = await fs.promises.readFile(path, "utf8");
    } catch (e) {
      continue;
    }
    for (const line of text.split("\n")) {
      const f = line.trim().split(/\s+/);
      if (f.length > 9 && f[4].includes(":")) {
        queues.set(f[9], parseInt(f[4].split(":")[0], 16));
      }
    }
  }
  return queues;
}

// Bytes handed to the kernel so far.
function inKernel(e) {
  return (e.handle.bytesWritten || 0) - (e.handle.writeQueueSize || 0);
}

// Whether the kernel may hold bytes its client has not taken: some are queued in
// Node, or some were handed to the kernel after it was last seen empty.
function mayHold(e) {
  return (e.handle.writeQueueSize || 0) > 0 || inKernel(e) > e.emptyAt;
}

// The socket's handle is Node's own (socket._handle): Node has no public way to a
// connection's descriptor (for its inode), to what libuv still queues, or to
// closing it with SO_LINGER 0 once Node itself has let go of it.
function track(socket) {
  const handle = socket._handle;
  if (!handle || typeof handle.close !== "function" || !socket.remoteAddress) return;
  const e = {
    socket, handle, address: clientOf(socket.remoteAddress), inode: kernelQueues ? inodeOf(handle) : null,
    front: isFrontProxy(socket.remoteAddress),
    emptyAt: 0, taken: 0, since: null, window: null, slowness: 0,
    lingering: false, reset: false, close: handle.close,
  };
  handle.close = function (callback) {
    if (e.reset) {
      // SO_LINGER 0: the kernel frees the connection's buffers at once
      watched.delete(e);
      if (this.reset(callback) === 0) return 0;
      log(`could not reset a connection of ${whose(e)}: closed instead, its buffers ` +
          "left to the kernel");
      return e.close.call(this, callback);
    }
    if (watched.has(e) && e.inode && mayHold(e)) {
      // Node is done with it, the client not yet: keep the connection until the
      // client has taken what the kernel holds for it, or stalls (see above)
      e.lingering = true;
      try {
        handle.readStop();
      } catch (err) {
        // already stopped
      }
      if (typeof callback === "function") setImmediate(callback);
      return 0;
    }
    watched.delete(e);
    return e.close.call(this, callback);
  };
  socket.once("close", () => {
    if (!e.lingering) watched.delete(e);
  });
  if (e.front) e.address = null;   // until a request names its client
  socket.courseStalledWrites = e;
  watched.add(e);
  if (!timer) {
    timer = setInterval(tick, TICK_MS);
    timer.unref();
  }
}

// Who a connection is, in the log: its client, or the front it came through.
function whose(e) {
  return e.address === null ? `the front proxy ${e.socket.remoteAddress}` : e.address;
}

// A front's connection counts for the client its latest request names.
function named(req) {
  const e = req.socket && req.socket.courseStalledWrites;
  if (e && e.front) e.address = frontsClient(req);
}

function cut(e, reason) {
  e.reset = true;
  if (e.lingering) {
    e.handle.close(() => {});
  } else {
    e.socket.destroy();
  }
  resets.add(whose(e), reason);
}

// The bytes the client took over the last countedMs, all along with bytes waiting
// for it, or null while it has not been waited on that long: e.window holds
// [time, taken] samples, the oldest the last at or before the window's start.
function takenInWindow(e, now) {
  e.window = e.window || [];
  e.window.push([now, e.taken]);
  while (e.window.length > 1 && e.window[1][0] <= now - countedMs) e.window.shift();
  const [at, taken] = e.window[0];
  return now - at >= countedMs ? { bytes: e.taken - taken, ms: now - at } : null;
}

async function tick() {
  if (ticking) return;
  ticking = true;
  try {
    const now = Date.now();
    const holding = [];
    for (const e of watched) {
      if (e.lingering || mayHold(e)) {
        holding.push(e);
      } else {
        e.since = null;
      }
    }
    if (!holding.length) {
      resets.flush(now);   // what was held back from the log, once its minute is up
      return;
    }
    const queues = kernelQueues ? await sendQueues() : null;
    const counted = [];
    for (const e of holding) {
      if (!watched.has(e)) continue;
      const queued = e.handle.writeQueueSize || 0;
      const kernel = inKernel(e);
      // not in the table: the connection is gone (reset by the client)
      const unacked = queues && e.inode ? queues.get(e.inode) || 0 : 0;
      const taken = kernel - unacked;
      if (!queued && !unacked) {
        e.emptyAt = kernel;
        e.taken = taken;
        e.since = null;
        e.window = null;
        if (e.lingering) {
          watched.delete(e);
          e.close.call(e.handle, () => {});
        }
        continue;
      }
      if (e.since === null || taken > e.taken) e.since = now;
      e.taken = taken;
      const recent = takenInWindow(e, now);
      if (now - e.since >= stallMs) {
        cut(e, `stalled ${stallMs / 1000} s`);
      } else if (now - e.since >= countedMs) {
        e.slowness = 0;
        counted.push(e);
      } else if (recent && recent.bytes * 1000 < LEAST_RATE * recent.ms) {
        e.slowness = (recent.bytes * 1000) / recent.ms;
        counted.push(e);
      }
    }
    // the slowest first: those that took nothing, the oldest stalled first
    counted.sort((a, b) => a.slowness - b.slowness || a.since - b.since);
    const byAddress = new Map();
    for (const e of counted) {
      byAddress.set(e.address, (byAddress.get(e.address) || 0) + 1);
    }
    const kept = [];
    for (const e of counted) {
      const n = byAddress.get(e.address);
      if (n > PER_ADDRESS && e.address !== null) {
        byAddress.set(e.address, n - 1);
        cut(e, `beyond the ${PER_ADDRESS} one address may have stalled or slow at once`);
      } else {
        kept.push(e);
      }
    }
    for (const e of kept.slice(0, Math.max(0, kept.length - inAll))) {
      cut(e, `beyond the ${inAll} stalled or slow at once in all`);
    }
    resets.flush(now);
  } catch (err) {
    log(`could not look at stalled connections: ${err && err.stack}`);
  } finally {
    ticking = false;
  }
}

let announced = false;

function watchStalledWrites(server) {
  if (!announced) {
    announced = true;
    log(`a connection whose client takes nothing of its answer for ${stallMs / 1000} s is ` +
        `reset; at most ${PER_ADDRESS} stalled over ${countedMs / 1000} s, or taking less than ` +
        `${LEAST_RATE >> 10} KiB/s over it, per address, ${inAll} in all` +
        (fronts.size ? ` (the trusted front proxies' ${[...fronts].join(", ")} counted ` +
          "for the client each request names, none of their own)" : "") +
        (kernelQueues ? "" : "; /proc/net/tcp NOT readable: only bytes still in the proxy " +
         "are watched, not the kernel's send buffers"));
  }
  server.on("connection", track);
  server.on("request", named);
  server.on("upgrade", named);
}

module.exports = { watchStalledWrites };
