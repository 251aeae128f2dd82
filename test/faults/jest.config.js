// The fault suite (npm run test:faults): long scenarios that crash, stop and starve the
// plugin and the control plane, then check the invariants. Apart from `npm test`, one
// file at a time (scenarios share the control plane, and leader scenarios share one Lease).
const path = require('node:path');

module.exports = {
  rootDir: path.resolve(__dirname, '../..'),
  displayName: 'faults',
  testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
  transform: { '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true } }] },
  transformIgnorePatterns: ['/node_modules/(?!chalk/)'],
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/faults/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 1,
  testSequencer: '<rootDir>/test/faults/sequencer.js',
  testTimeout: 900_000,
  slowTestThreshold: 300,
};
