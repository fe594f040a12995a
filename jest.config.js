export default {
  projects: ['<rootDir>/packages/*', '<rootDir>/services/*', '<rootDir>/test'],
};
