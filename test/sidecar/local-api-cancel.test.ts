import { afterAll, afterEach, describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_API_SOCKET_CALLER } from '../../src/lib/caller-identity.js';
import { setOperationStatus } from '../../src/registration/index.js';
import { startLocalApi, type LocalApi } from '../../src/sidecar/local-api.js';
import { sm } from '../../src/vocab/index.js';
import { unixRequest } from '../e2e/support/unix-http.js';
import { middlewareSuite, OPEN_REQUEST, silent } from '../middleware/support/harness.js';

/**
 * The local API's cancel route (`POST /operations/cancel`) and the `deadline` field of
 * `POST /operations`, in process on a Unix socket: every answer of a cancel (200, 202, 404, 409,
 * 400), the caller identity recorded, and bad deadlines refused with a 400 that writes nothing.
 */

const G = 'urn:test:sidecar:local-api-cancel';

describe.each(['embedded', 'remote'] as const)('cancel and deadlines on the local API on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const dir = mkdtempSync(join(tmpdir(), 'sm-local-cancel-'));
  let api: LocalApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function started(): Promise<string> {
    const mw = suite.controller({ heartbeatInterval: null });
    await mw.start();
    const socket = join(dir, `api-${randomUUID().slice(0, 8)}.sock`);
    api = await startLocalApi({ middleware: mw, listen: { socket }, logger: silent });
    return socket;
  }

  suite.onStore('should cancel a queued Operation (200), mark a running one (202), and refuse finished and unknown ones', async () => {
    const socket = await started();
    const call = (path: string, body?: unknown) => unixRequest(socket, 'POST', path, body === undefined ? {} : { body });
    const queued = await suite.queuedOp();
    const cancelled = await call('/operations/cancel', { operation: queued });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toEqual({
      operationIri: queued,
      outcome: 'cancelled',
      status: 'failed',
      failureKind: 'cancelled',
      cancelledBy: LOCAL_API_SOCKET_CALLER,
    });
    const status = await unixRequest(socket, 'GET', `/operations/status?iri=${encodeURIComponent(queued)}`);
    expect(status.json).toMatchObject({ status: 'failed', failureKind: 'cancelled', cancelledBy: LOCAL_API_SOCKET_CALLER });
    const again = await call('/operations/cancel', { operation: queued });
    expect(again.status).toBe(409);
    expect((again.json as { detail: string }).detail).toContain("'failed' already");

    const running = await suite.queuedOp();
    await setOperationStatus(suite.newOgm(), { operationIri: running, status: 'running' });
    const requested = await call('/operations/cancel', { operation: running });
    expect(requested.status).toBe(202);
    expect(requested.json).toMatchObject({ outcome: 'requested', status: 'running', cancelledBy: LOCAL_API_SOCKET_CALLER });

    const before = await suite.dump();
    const unknown = `${queued}-unknown`;
    expect((await call('/operations/cancel', { operation: unknown })).status).toBe(404);
    for (const body of [
      { operation: 'https://example.org/a>b' },
      { operation: 'not an iri' },
      {},
      { operation: 42 },
      [queued],
      'null',
      '{"operation":',
    ])
      expect((await call('/operations/cancel', body)).status).toBe(400);
    expect((await unixRequest(socket, 'DELETE', '/operations/cancel')).status).toBe(404);
    expect(await suite.dump()).toBe(before);
  });

  suite.onStore("should write a request's deadline, and refuse a past or malformed one with a 400 that writes nothing", async () => {
    const socket = await started();
    const before = await suite.dump();
    for (const deadline of [
      '2020-01-01T00:00:00Z',
      'in ten minutes',
      '2030-01-01T00:00:00',
      '2030-02-30T25:00:00Z',
      1_900_000_000_000,
      { at: 1 },
      '"}> ; DROP ALL #',
    ]) {
      const answer = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, deadline } });
      expect(answer.status).toBe(400);
      expect((answer.json as { detail: string }).detail).toContain('deadline');
    }
    expect(await suite.dump()).toBe(before);
    const deadline = new Date(Date.now() + 120_000).toISOString();
    const created = await unixRequest(socket, 'POST', '/operations', { body: { ...OPEN_REQUEST, deadline } });
    expect(created.status).toBe(201);
    const { operation } = created.json as { operation: string };
    expect((await suite.dump()).includes(`<${operation}> <${sm.deadline}>`)).toBe(true);
    const status = await unixRequest(socket, 'GET', `/operations/status?iri=${encodeURIComponent(operation)}`);
    expect(status.json).toMatchObject({ status: 'queued', deadline });
  });
});
