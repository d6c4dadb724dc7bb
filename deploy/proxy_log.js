// The proxy limits' log lines (to the proxy's stderr, which the hub's log takes),
// and what they did to each client address, told once a minute at most for each:
// a flood of thousands of connections from one address makes one line a minute,
// not one a connection.
"use strict";

const LOG_EVERY_MS = 60 * 1000;

function log(message) {
  process.stderr.write(`${new Date().toISOString()} proxy limits: ${message}\n`);
}

// Counts, by address and reason, what a limit did; add() logs an address's counts
// at once if its last line is over a minute old, and holds them back otherwise, for
// flush() (called at least once a minute by the limit) to log once the minute is up.
// say(address, total, "12 stalled, 3 beyond ...", again) makes the line.
class PerAddressLog {
  constructor(say) {
    this.say = say;
    this.entries = new Map();   // address -> { at, counts: { reason: n } }
  }

  add(address, reason, n = 1, now = Date.now()) {
    const entry = this.entries.get(address) || { at: -Infinity, counts: {} };
    entry.counts[reason] = (entry.counts[reason] || 0) + n;
    this.entries.set(address, entry);
    this.flushOne(address, entry, now);
  }

  flush(now = Date.now()) {
    for (const [address, entry] of this.entries) {
      this.flushOne(address, entry, now);
      if (!Object.keys(entry.counts).length && now - entry.at > 2 * LOG_EVERY_MS) {
        this.entries.delete(address);
      }
    }
  }

  flushOne(address, entry, now) {
    const reasons = Object.entries(entry.counts);
    if (!reasons.length || now - entry.at < LOG_EVERY_MS) return;
    const total = reasons.reduce((sum, [, n]) => sum + n, 0);
    log(this.say(address, total, reasons.map(([r, n]) => `${n} ${r}`).join(", "),
                 entry.at > -Infinity));
    entry.at = now;
    entry.counts = {};
  }
}

// Tests shorten the timings and bounds (never lengthen them).
function shortened(name, most) {
  const value = Number(process.env[name]);
  return value > 0 && value < most ? value : most;
}

module.exports = { LOG_EVERY_MS, PerAddressLog, log, shortened };
