// The requests a client pipelines on one connection are passed on one at a time
// (applied to configurable-http-proxy's servers by proxy_limits.js).
//
// Node's HTTP server hands over every request a connection pipelines at once, and
// the proxy starts each on a new connection to its server, keeping them while the
// client does not read. A student who sent 100 pipelined requests for a 2.2 MB
// file on each of 60 connections, reading none, left the proxy with 5,862
// connections to the book service and 968 MB, and the machine's TCP memory at its
// hard limit, after she had gone. Browsers do not pipeline; so here each
// connection has one request in the proxy's hands at a time, the next starting
// when its answer is finished. A connection that has more than MAX_WAITING
// waiting is closed, and what waits on a connection that closes is dropped.
"use strict";

const MAX_WAITING = 32;

function oneAtATime(listener) {
  return function (req, res) {
    const server = this;
    const socket = req.socket;
    let line = socket.coursePipeline;
    if (!line) {
      line = socket.coursePipeline = { busy: false, waiting: [] };
      socket.once("close", () => {
        line.waiting.length = 0;
      });
    }
    const start = (req, res) => {
      line.busy = true;
      let done = false;
      const next = () => {
        if (done) return;
        done = true;
        line.busy = false;
        const following = line.waiting.shift();
        if (following && !socket.destroyed) start(...following);
      };
      res.once("finish", next);
      res.once("close", next);
      listener.call(server, req, res);
    };
    if (!line.busy) {
      start(req, res);
    } else if (line.waiting.length >= MAX_WAITING) {
      line.waiting.length = 0;
      socket.destroy();
    } else {
      line.waiting.push([req, res]);
    }
  };
}

module.exports = { oneAtATime };
