// A connection whose client takes nothing of what the proxy has for it is closed,
// and an address, and all addresses together, hold only a few such connections at
// once (applied to configurable-http-proxy's servers by proxy_limits.js).
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
// every few seconds however slowly it reads, so it keeps its connection; a cap on
// open connections per address would instead shut out a class behind one NAT
// address (a JupyterLab tab holds several websockets), and an honest browser's
// connections are never stalled for seconds.
"use strict";

const fs = require("fs");

// A connection whose client has taken nothing for this long is reset: long enough
// for a phone in a tunnel, short enough that a flood of them is freed within a minute.
const STALL_SECONDS = 60;
// Stalled this long, a connection counts towards the caps below; honest browsers'
// connections are never stalled for seconds.
const COUNTED_AFTER_SECONDS = 5;
// One address (socket.remoteAddress) has at most this many counted connections;
// beyond it its oldest stalled is reset: 16 × 8.35 MB (measured, both sides of an
// answer of 8 MB or more) ≈ 134 MB held for one address at most.
const PER_ADDRESS = 16;
// All addresses together have at most this many (oldest reset first), and never
// more than fit, at the largest two send buffers each (the proxy's to the client,
// the server's to the proxy), in half of tcp_mem's pressure threshold.
const IN_ALL = 256;
// How often connections are looked at; /proc/net/tcp is read only when some
// connection has bytes its client has not taken.
const TICK_MS = 1000;
// A client's reset connections are logged once a minute at most.
const LOG_EVERY_MS = 60 * 1000;

// Tests shorten the timings and the bound in all (never lengthen them).
function shortened(name, most) {
  const value = Number(process.env[name]);
  return value > 0 && value < most ? value : most;
}

const stallMs = 1000 * shortened("KERNEL_COURSE_PROXY_STALL_SECONDS", STALL_SECONDS);
const countedMs = 1000 * Math.min(
  shortened("KERNEL_COURSE_PROXY_STALL_COUNTED_SECONDS", COUNTED_AFTER_SECONDS), stallMs / 1000);
const inAll = Math.floor(shortened("KERNEL_COURSE_PROXY_STALLED_IN_ALL", fitInTcpMemory(IN_ALL)));

const watched = new Set();
const logged = new Map();   // address -> { at, closed: { reason: count } }
const kernelQueues = canReadKernelQueues();
let timer = null;
let ticking = false;

function log(message) {
  process.stderr.write(`${new Date().toISOString()} proxy limits: ${message}\n`);
}

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

// What the caps count a client by: its address, an IPv6 address by its /64 (the
// block one host is given, and may fill with addresses of its own), an IPv4 address
// the proxy sees as IPv6 (::ffff:a.b.c.d) as itself.
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

// The socket's handle is Node's own (socket._handle): Node has no public way to a
// connection's descriptor (for its inode), to what libuv still queues, or to
// closing it with SO_LINGER 0 once Node itself has let go of it.
function track(socket) {
  const handle = socket._handle;
  if (!handle || typeof handle.close !== "function" || !socket.remoteAddress) return;
  const e = {
    socket, handle, address: clientOf(socket.remoteAddress), inode: kernelQueues ? inodeOf(handle) : null,
    emptyAt: 0, taken: 0, since: null, lingering: false, reset: false, close: handle.close,
  };
  handle.close = function (callback) {
    if (e.reset) {
      // SO_LINGER 0: the kernel frees the connection's buffers at once
      watched.delete(e);
      if (this.reset(callback) === 0) return 0;
      log(`could not reset a connection of ${e.address}: closed instead, its buffers ` +
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
  watched.add(e);
  if (!timer) {
    timer = setInterval(tick, TICK_MS);
    timer.unref();
  }
}

function cut(e, reason, closed) {
  e.reset = true;
  if (e.lingering) {
    e.handle.close(() => {});
  } else {
    e.socket.destroy();
  }
  const mine = closed.get(e.address) || {};
  mine[reason] = (mine[reason] || 0) + 1;
  closed.set(e.address, mine);
}

function report(closed, now) {
  for (const [address, counts] of closed) {
    const entry = logged.get(address) || { at: -Infinity, closed: {} };
    for (const [reason, n] of Object.entries(counts)) {
      entry.closed[reason] = (entry.closed[reason] || 0) + n;
    }
    logged.set(address, entry);
  }
  for (const [address, entry] of logged) {
    const reasons = Object.entries(entry.closed);
    if (!reasons.length || now - entry.at < LOG_EVERY_MS) continue;
    const total = reasons.reduce((sum, [, n]) => sum + n, 0);
    log(`reset ${total} connection${total === 1 ? "" : "s"} of ${address} that took nothing ` +
        `of what the proxy had for them (${reasons.map(([r, n]) => `${n} ${r}`).join(", ")})` +
        (entry.at > -Infinity ? " since the last line" : ""));
    entry.at = now;
    entry.closed = {};
  }
  for (const [address, entry] of logged) {
    if (now - entry.at > 2 * LOG_EVERY_MS) logged.delete(address);
  }
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
      report(new Map(), now);   // what was held back from the log, once its minute is up
      return;
    }
    const queues = kernelQueues ? await sendQueues() : null;
    const closed = new Map();
    const stalled = [];
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
        if (e.lingering) {
          watched.delete(e);
          e.close.call(e.handle, () => {});
        }
        continue;
      }
      if (e.since === null || taken > e.taken) e.since = now;
      e.taken = taken;
      if (now - e.since >= stallMs) {
        cut(e, `stalled ${stallMs / 1000} s`, closed);
      } else if (now - e.since >= countedMs) {
        stalled.push(e);
      }
    }
    stalled.sort((a, b) => a.since - b.since);
    const byAddress = new Map();
    for (const e of stalled) {
      byAddress.set(e.address, (byAddress.get(e.address) || 0) + 1);
    }
    const kept = [];
    for (const e of stalled) {
      const n = byAddress.get(e.address);
      if (n > PER_ADDRESS) {
        byAddress.set(e.address, n - 1);
        cut(e, `beyond the ${PER_ADDRESS} one address may have stalled at once`, closed);
      } else {
        kept.push(e);
      }
    }
    for (const e of kept.slice(0, Math.max(0, kept.length - inAll))) {
      cut(e, `beyond the ${inAll} stalled at once in all`, closed);
    }
    report(closed, now);
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
        `reset; at most ${PER_ADDRESS} stalled over ${countedMs / 1000} s per address, ` +
        `${inAll} in all` +
        (kernelQueues ? "" : "; /proc/net/tcp NOT readable: only bytes still in the proxy " +
         "are watched, not the kernel's send buffers"));
  }
  server.on("connection", track);
}

module.exports = { clientOf, watchStalledWrites };
