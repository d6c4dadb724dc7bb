// A rate of requests per client (proxy_clients.js: an address, an IPv6 /64) to each
// user server, and to all user servers together (applied to configurable-http-proxy's
// servers by proxy_limits.js). A trusted front proxy's clients are left to the front's
// own rates (deploy/nginx-course.conf), which are the same.
//
// A student's server reaches the proxy from its own address (the joins,
// server_network.py), not through the front: from her kernel she sent 900 requests a
// second to a classmate's server, each answered 403 by his server, and his own file
// listing took up to a second. Here each client has, for each server, a bucket of
// PER_SERVER_BURST requests refilled at PER_SERVER_RATE a second, and one of ALL_BURST
// refilled at ALL_RATE for every server together; a request beyond either is answered
// 429 by the proxy at once, never reaching the server. A class behind one NAT address
// is not slowed by one of them: each student's own server has its own bucket.
//
// The server is the one the proxy routes the request to: the path read the way
// configurable-http-proxy reads it (a URL's path, percent-decoded, split into
// segments with its leading slashes dropped), beginning user/<name> (the hub's base
// URL is /), so a path written another way (%64emo-bob, %2Fuser, a backslash, a ..)
// counts for the server it reaches.
"use strict";

const { clientOf, isFrontProxy } = require("./proxy_clients.js");
const { PerAddressLog, log, shortened } = require("./proxy_log.js");

const PER_SERVER_RATE = 50;      // requests a second, as nginx-course.conf's course_servers
const PER_SERVER_BURST = 300;
const ALL_RATE = 200;            // as nginx-course.conf's course_servers_all
const ALL_BURST = 2000;

const settings = {
  perServerRate: shortened("KERNEL_COURSE_PROXY_SERVER_RATE", PER_SERVER_RATE),
  perServerBurst: shortened("KERNEL_COURSE_PROXY_SERVER_BURST", PER_SERVER_BURST),
  allRate: shortened("KERNEL_COURSE_PROXY_ALL_SERVERS_RATE", ALL_RATE),
  allBurst: shortened("KERNEL_COURSE_PROXY_ALL_SERVERS_BURST", ALL_BURST),
};

const buckets = new Map();   // client, or client and server -> { tokens, at }
const refused = new PerAddressLog((address, total, reasons, again) =>
  `answered 429 to ${total} request${total === 1 ? "" : "s"} of ${address} to user ` +
  `servers${again ? " since the last line" : ""} (${reasons}): beyond ` +
  `${settings.perServerRate}/s to one server or ${settings.allRate}/s to all`);
let timer = null;
let announced = false;

// The user server a request's path reaches, or null (the hub, a service, a path
// configurable-http-proxy cannot decode).
function serverOf(url) {
  let path;
  try {
    path = decodeURIComponent(new URL(url, "http://example.com").pathname);
  } catch (e) {
    return null;
  }
  // its segments as the proxy's routes split them (leading slashes dropped)
  const segments = path.replace(/^\/+/, "").split("/");
  return segments[0] === "user" && segments[1] ? segments[1] : null;
}

// The tokens a bucket holds now; a bucket not kept is full.
function level(key, rate, burst, now) {
  const bucket = buckets.get(key);
  return bucket ? Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate) : burst;
}

// Whether a request is beyond its client's rates (and then counted as refused). A
// refused request changes no bucket and makes none: a server's name of her choosing
// on each request (each a bucket of its own) keeps at most as many as the rate for
// all lets through.
function beyondRate(req) {
  const address = req.socket && req.socket.remoteAddress;
  if (!address || isFrontProxy(address)) return false;
  const server = serverOf(req.url || "/");
  if (server === null) return false;
  const client = clientOf(address);
  const key = `${client} ${server}`;
  const now = Date.now();
  const one = level(key, settings.perServerRate, settings.perServerBurst, now);
  if (one < 1) {
    refused.add(client, "beyond the rate to one server");
    return true;
  }
  const all = level(client, settings.allRate, settings.allBurst, now);
  if (all < 1) {
    refused.add(client, "beyond the rate to all servers");
    return true;
  }
  buckets.set(key, { tokens: one - 1, at: now });
  buckets.set(client, { tokens: all - 1, at: now });
  return false;
}

// Full buckets are forgotten (one not kept is full): a server's after 6 s without
// a request, a client's after 10 s.
function sweep() {
  refused.flush();
  const now = Date.now();
  for (const [key, bucket] of buckets) {
    const [rate, burst] = key.includes(" ") ? [settings.perServerRate, settings.perServerBurst]
      : [settings.allRate, settings.allBurst];
    if (bucket.tokens + ((now - bucket.at) / 1000) * rate >= burst) buckets.delete(key);
  }
}

// How many buckets are kept (for tests).
function bucketsKept() {
  return buckets.size;
}

const TOO_MANY = "Too many requests to user servers from your address: " +
  "please wait a second and try again.\n";

// The request listener, with a request beyond its client's rates answered 429.
function rated(listener) {
  if (!timer) {
    timer = setInterval(sweep, 5000);
    timer.unref();
  }
  return function (req, res) {
    if (!beyondRate(req)) return listener.call(this, req, res);
    res.writeHead(429, { "Content-Type": "text/plain; charset=utf-8",
                         "Content-Length": Buffer.byteLength(TOO_MANY), "Retry-After": "1" });
    res.end(TOO_MANY);
  };
}

// A websocket's upgrade beyond its client's rates: answered 429 and closed before
// the server's own upgrade listener sees it.
function rateUpgrades(server) {
  if (!announced) {
    announced = true;
    log(`requests per client to each user server at most ${settings.perServerRate}/s ` +
        `(${settings.perServerBurst} at once), to all at most ${settings.allRate}/s ` +
        `(${settings.allBurst} at once); beyond them answered 429`);
  }
  const emit = server.emit;
  server.emit = function (event, req, socket, ...rest) {
    if (event !== "upgrade" || !beyondRate(req)) return emit.call(this, event, req, socket, ...rest);
    socket.end("HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\n" +
               `Content-Length: ${Buffer.byteLength(TOO_MANY)}\r\nRetry-After: 1\r\n\r\n` +
               TOO_MANY);
    return true;
  };
}

module.exports = { bucketsKept, rated, rateUpgrades, serverOf };
