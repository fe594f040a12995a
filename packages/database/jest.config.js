import { jestProject } from '../../jest.preset.js';

export default jestProject(import.meta.dirname, 'database');
