/**
 * Direct calls in the activity feed: a workflow run, a state read or a parameter write made
 * over the HTTP surface is recorded with who called it and how it was answered, as the
 * Operations it did not go through would have been.
 */
import type { ServerResponse } from 'node:http';
import { errorAnswer } from '../../http/http-error.js';
import { callerOf } from '../../http/token-callers.js';
import { HTTP_OPEN_CALLER } from '../../lib/caller-identity.js';
import type { HttpSurface } from './contract.js';

/** What a direct call was; also the activity kind it is recorded as. */
export type DirectCall = 'workflow' | 'state' | 'parameter';

/**
 * Records one direct call: `{ <call>: name, caller, status }` (the HTTP status answered). Does
 * nothing without an activity feed.
 */
export function recordCall(surface: HttpSurface, call: DirectCall, name: string, res: ServerResponse, status: number): void {
  surface.activity?.record(call, { [call]: name, caller: callerOf(res)?.id ?? HTTP_OPEN_CALLER, status });
}

/** Runs `work` and records the call with its outcome; the outcome (value or error) is passed on. */
export async function recorded<T>(
  surface: HttpSurface,
  call: DirectCall,
  name: string,
  res: ServerResponse,
  work: () => T,
): Promise<Awaited<T>> {
  if (surface.activity === undefined) return await work();
  try {
    const value = await work();
    recordCall(surface, call, name, res, 200);
    return value;
  } catch (error) {
    recordCall(surface, call, name, res, errorAnswer(error).status);
    throw error;
  }
}
