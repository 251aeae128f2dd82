// Fault injection, loaded with node --require: once the file named by STOP_IN_WRITE exists,
// the next request this process hands to a socket whose request line matches
// STOP_IN_WRITE_MATCH (a regular expression) stops the process (SIGSTOP) before its bytes go
// out. It makes a bad timing happen every time: a controller replica paused right after its
// write gate let a write through (test/faults/leader.test.ts), or a pass paused between its
// read of a WebService and its write, while someone changes that WebService
// (test/integration/commands.test.ts).
//
// With STOP_IN_WRITE_MODE=hold, the process keeps running and only that request waits, until
// the trigger file is removed: a reconcile held in a write while /metrics still answers
// (test/integration/stuck-worker.test.ts). A request aborted meanwhile is never sent.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const { setInterval, clearInterval } = require('node:timers');

const trigger = process.env.STOP_IN_WRITE;
const match = new RegExp(process.env.STOP_IN_WRITE_MATCH ?? '^PATCH ');
const hold = process.env.STOP_IN_WRITE_MODE === 'hold';
let armed = Boolean(trigger);

function matches(chunk) {
  const head = Buffer.isBuffer(chunk) ? chunk.toString('latin1', 0, 512) : String(chunk).slice(0, 512);
  return match.test(head.split('\r\n')[0]);
}

for (const name of ['_writev', '_write']) {
  const original = net.Socket.prototype[name];
  net.Socket.prototype[name] = function (...args) {
    const first = name === '_writev' ? args[0][0]?.chunk : args[0];
    if (armed && first !== undefined && matches(first) && fs.existsSync(trigger)) {
      armed = false;
      if (hold) {
        const timer = setInterval(() => {
          if (this.destroyed) clearInterval(timer);
          else if (!fs.existsSync(trigger)) {
            clearInterval(timer);
            original.apply(this, args);
          }
        }, 50);
        return;
      }
      process.kill(process.pid, 'SIGSTOP'); // resumes here on SIGCONT, and the write goes out
    }
    return original.apply(this, args);
  };
}
