/**
 * Test support for the HTTP surface: a hand-made HttpSurface, a real server on 127.0.0.1:0,
 * a pino logger writing to a parsable sink, and JSON response checks.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type express from 'express';
import { expect } from '@jest/globals';
import pino from 'pino';
import { createLogger, type Logger } from '../../../../src/lib/logger.js';
import type { HttpSurface, TriggerAnswer, WorkflowHandler, StateGetter } from '../../../../src/middleware/surface/contract.js';

/** A running server and its base URL. */
export interface Served {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Listens on an ephemeral loopback port. */
export async function serve(app: express.Express): Promise<Served> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A surface whose parts tests replace; records trigger calls. */
export interface FakeSurface extends HttpSurface {
  workflows: Map<string, WorkflowHandler>;
  states: Map<string, StateGetter>;
  triggered: string[];
  workflowLookups: string[];
}

/** A surface that queues every trigger, with the given workflows and states. */
export function fakeSurface(parts: Partial<HttpSurface> = {}, logger: Logger = createLogger({ level: 'silent' })): FakeSurface {
  const surface: FakeSurface = {
    welcome: 'Welcome to semantic middleware!',
    workflows: new Map(),
    states: new Map(),
    triggered: [],
    workflowLookups: [],
    workflow(name) {
      surface.workflowLookups.push(name);
      return surface.workflows.get(name);
    },
    state: (name) => surface.states.get(name),
    trigger(operationIri): Promise<TriggerAnswer> {
      surface.triggered.push(operationIri);
      return Promise.resolve({ operation: operationIri, status: 'queued' });
    },
    live: () => true,
    ready: () => Promise.resolve(true),
    logger,
    ...parts,
  };
  return surface;
}

/** A debug-level pino logger whose lines are kept parsed. */
export function logSink(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

/** A response's status and parsed JSON body, after checking it is JSON and never HTML. */
export async function jsonOf(res: Response): Promise<{ status: number; body: unknown }> {
  const text = await res.text();
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(text.trimStart().startsWith('<')).toBe(false);
  return { status: res.status, body: JSON.parse(text) as unknown };
}

/** POSTs `body` as JSON; a string is sent as it is (already JSON, or deliberately not). */
export function post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  if (body === undefined) return fetch(url, { method: 'POST', headers });
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
