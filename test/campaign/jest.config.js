// The correctness campaign (npm run test:campaign -- --seed N --steps M): seeded random
// histories against a plane that runs pods, with `kubectl webservice run` as the controller,
// checked by oracles at quiescence. Its own plane; one history at a time.
const path = require('node:path');

module.exports = {
  rootDir: path.resolve(__dirname, '../..'),
  displayName: 'campaign',
  testMatch: ['<rootDir>/test/campaign/**/*.test.ts'],
  transform: { '^.+\\.[tj]s$': ['ts-jest', { tsconfig: { allowJs: true } }] },
  transformIgnorePatterns: ['/node_modules/(?!chalk/)'],
  testEnvironment: 'node',
  globalSetup: '<rootDir>/test/campaign/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 1,
  testTimeout: 24 * 3600_000,
  slowTestThreshold: 600,
};
