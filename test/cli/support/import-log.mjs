// `node --import <this file> ...`: records every module the process imports (see import-log-hooks.mjs),
// and every file it loads with CommonJS `require` (which those hooks do not see), to IMPORT_LOG.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./import-log-hooks.mjs', import.meta.url);

const resolve = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const filename = resolve.apply(this, args);
  if (filename.startsWith('/')) appendFileSync(process.env.IMPORT_LOG, `${pathToFileURL(filename).href}\n`);
  return filename;
};
