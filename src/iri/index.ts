export * from './validate.js';
export * from './address.js';
export * from './lined.js';
export * from './mint.js';
export * from './endpoints.js';
