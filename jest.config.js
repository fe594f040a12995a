export default {
  projects: ['<rootDir>/packages/*', '<rootDir>/services/*', '<rootDir>/test'],
  // Jest reads the timeout from here when running projects; see jest.preset.js for why 30 s.
  testTimeout: 30_000,
};
