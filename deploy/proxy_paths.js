// A request whose target the proxy cannot read is answered 400 here (applied to
// configurable-http-proxy's servers by proxy_limits.js).
//
// configurable-http-proxy reads each target as a URL (new URL(target, base)) and
// percent-decodes its path; a target that fails either (`//0999999999/x`, a
// host-like first segment that is no host; `/user/%zz`) threw inside it, and each
// wrote a stack trace of a kilobyte and more, the target echoed, to the hub's log,
// naming no client: 300 a second from a student's server grew the log by 3.5 MB/s,
// pushing every older line (her own traces among them) out of its 500 MB in
// minutes. Here such a request is answered 400 before the proxy reads it, and a
// websocket's upgrade is answered 400 and closed.
"use strict";

const BAD = "The proxy cannot read this address.\n";

// Whether configurable-http-proxy can read a request's target as it does.
function readable(url) {
  try {
    decodeURIComponent(new URL(url, "http://example.com").pathname);
    return true;
  } catch (e) {
    return false;
  }
}

// The request listener, with a target the proxy cannot read answered 400.
function readablePaths(listener) {
  return function (req, res) {
    if (readable(req.url || "/")) return listener.call(this, req, res);
    res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8",
                         "Content-Length": Buffer.byteLength(BAD) });
    res.end(BAD);
  };
}

// A websocket's upgrade to such a target: answered 400 and closed before the
// server's own upgrade listener sees it.
function readableUpgrades(server) {
  const emit = server.emit;
  server.emit = function (event, req, socket, ...rest) {
    if (event !== "upgrade" || readable(req.url || "/")) {
      return emit.call(this, event, req, socket, ...rest);
    }
    socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n" +
               `Content-Length: ${Buffer.byteLength(BAD)}\r\n\r\n${BAD}`);
    return true;
  };
}

module.exports = { readable, readablePaths, readableUpgrades };
