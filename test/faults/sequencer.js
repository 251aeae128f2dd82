// Runs the fault files in a fixed order, uninstall and then watch-backoff first: they delete and
// restore the CRD, which must happen on a plane where no other file has left WebServices behind.
const Sequencer = require('@jest/test-sequencer').default;

class FaultSequencer extends Sequencer {
  sort(tests) {
    const first = ['uninstall.test.ts', 'watch-backoff.test.ts'];
    const rank = (test) => {
      const at = first.findIndex((name) => test.path.endsWith(name));
      return at < 0 ? first.length : at;
    };
    return [...tests].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
  }
}

module.exports = FaultSequencer;
