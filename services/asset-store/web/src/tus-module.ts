/** The upload client as a module of its own (`tus.js`), loaded by the first upload. */
export { Upload } from 'tus-js-client';
