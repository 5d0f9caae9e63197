// Preloaded into a sidecar (NODE_OPTIONS=--import) by the OPC UA lazy-loading test: appends the
// URL of every node-opcua module the process resolves to the file named by SM_MODULE_WATCH.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('node-opcua')) appendFileSync(process.env.SM_MODULE_WATCH, resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
