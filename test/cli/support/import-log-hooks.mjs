// Module hooks (registered by import-log.mjs) that append every URL a process imports to the
// file named by IMPORT_LOG, so a test can tell which modules a command loaded.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(process.env.IMPORT_LOG, `${result.url}\n`);
  return result;
}
