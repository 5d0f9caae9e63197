/**
 * The limit of a token restricted to some workflows (see src/http/named-tokens.ts): it may read
 * (GET, HEAD) and run its workflows, nothing else. Checked before any route reads a body, so a
 * refused call runs nothing and writes nothing.
 */
import type { RequestHandler } from 'express';
import { HttpError } from '../../http/http-error.js';
import { callerOf, mayRun } from '../../http/token-callers.js';
import { preview } from '../../iri/validate.js';

/** The path of a workflow call; its one group is the workflow's name, percent-encoded. */
export const WORKFLOW_PATH = /^\/workflows\/([^/]+)\/execute$/u;

/** A path segment decoded; undefined for none or a malformed percent-encoding. */
export function decodedName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The middleware answering 403 to what a limited caller may not do; others pass untouched. */
export function workflowLimits(): RequestHandler {
  return (req, res, next) => {
    const caller = callerOf(res);
    if (caller?.workflows === undefined || req.method === 'GET' || req.method === 'HEAD') {
      next();
      return;
    }
    const name = decodedName(WORKFLOW_PATH.exec(req.path)?.[1]);
    if (name !== undefined && mayRun(caller, name)) {
      next();
      return;
    }
    const allowed = [...caller.workflows].join(', ');
    const what = name === undefined ? `${req.method} ${preview(req.path)}` : `the workflow ${preview(name)}`;
    next(new HttpError(403, `the token of ${caller.id} may run only the workflows ${allowed} (and read); ${what} is refused`));
  };
}
