export * from './namespaces.js';
export * from './terms.js';
export * from './status.js';
