// Loaded into configurable-http-proxy (node --require, jupyterhub_config.py): the
// limits the proxy keeps on what one client connection may hold of it, applied to
// every server the proxy makes (its public port and its API).
//
// - the requests a connection pipelines are passed on one at a time
//   (proxy_pipelining.js);
// - a request whose target the proxy cannot read is answered 400 (proxy_paths.js);
// - one client address has at most so many connections open at once
//   (proxy_connections.js);
// - one client address has a rate of requests to each user server, and one to all
//   of them together, beyond which the proxy answers 429 itself (proxy_rates.js);
// - a connection whose client takes nothing of what the proxy has for it is closed,
//   and an address, and all addresses together, have only a few such connections,
//   or ones whose client takes less than a least rate, at once
//   (proxy_stalled_writes.js).
"use strict";

const http = require("http");
const { capConnections } = require("./proxy_connections.js");
const { readablePaths, readableUpgrades } = require("./proxy_paths.js");
const { oneAtATime } = require("./proxy_pipelining.js");
const { rated, rateUpgrades } = require("./proxy_rates.js");
const { watchStalledWrites } = require("./proxy_stalled_writes.js");

const createServer = http.createServer;

http.createServer = function (options, listener) {
  if (typeof options === "function") {
    listener = options;
    options = {};
  }
  const server = createServer.call(this, options || {}, listener && oneAtATime(readablePaths(rated(listener))));
  capConnections(server);     // first: a connection it refuses is not watched
  watchStalledWrites(server);
  rateUpgrades(server);
  readableUpgrades(server);   // last: its check comes first
  return server;
};
