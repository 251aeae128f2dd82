// Runs the fault files in a fixed order, uninstall first: it deletes and restores the CRD,
// which must happen on a plane where no other file has left WebServices behind.
const Sequencer = require('@jest/test-sequencer').default;

class FaultSequencer extends Sequencer {
  sort(tests) {
    const rank = (test) => (test.path.endsWith('uninstall.test.ts') ? 0 : 1);
    return [...tests].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
  }
}

module.exports = FaultSequencer;
