export * from './namespaces.js';
export * from './terms.js';
export * from './status.js';
export * from './defaults.js';
export * from './graphs.js';
