import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { HandoverPreconditionError, OperationQueueEmpty, RuntimeError, TransitionConflictError, ValueError } from '../../../src/errors.js';
import { DeviceTimeoutError } from '../../../src/device/errors.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import type { WorkflowArguments } from '../../../src/middleware/surface/contract.js';
import { fakeSurface, jsonOf, post, serve, type FakeSurface, type Served } from './support/serve.js';

class DeviceTimeout extends Error {
  readonly statusCode = 504;
}

describe('POST /workflows/{name}/execute', () => {
  let served: Served;
  let surface: FakeSurface;
  let seen: WorkflowArguments[];
  beforeEach(async () => {
    seen = [];
    surface = fakeSurface({ bodyLimitBytes: 1024 });
    surface.workflows.set('open', (args) => {
      seen.push(args);
      return { opened: true, args };
    });
    surface.workflows.set('nothing', () => undefined);
    surface.workflows.set('slow', async () => {
      await new Promise((r) => setTimeout(r, 5));
      return 'closed';
    });
    served = await serve(createApp(surface));
  });
  afterEach(() => served.close());
  const url = (name: string, query = ''): string => `${served.url}/workflows/${encodeURIComponent(name)}/execute${query}`;
  const failWith = (err: unknown): void => {
    surface.workflows.set('fail', () => {
      throw err;
    });
  };

  it('should call the handler with {} when there is no body and serve its raw JSON value', async () => {
    expect(await jsonOf(await post(url('open')))).toEqual({ status: 200, body: { opened: true, args: {} } });
    expect(seen).toEqual([{}]);
  });

  it('should merge the JSON object body over the query parameters', async () => {
    await jsonOf(await post(url('open', '?arg=5&speed=slow'), { speed: 2, target: 'bin-3' }));
    expect(seen).toEqual([{ arg: '5', speed: 2, target: 'bin-3' }]);
  });

  it('should serve undefined as null and await async handlers', async () => {
    const nothing = await post(url('nothing'));
    expect(await nothing.text()).toBe('null');
    expect(nothing.status).toBe(200);
    const slow = await post(url('slow'));
    expect(await slow.text()).toBe('"closed"');
  });

  it('should answer 422 when the JSON body is not an object, without calling the handler', async () => {
    for (const body of ['5', '"text"', '[1,2]', 'null', 'true']) {
      const { status, body: answer } = await jsonOf(await post(url('open'), body));
      expect([body, status]).toEqual([body, 422]);
      expect((answer as { detail: string }).detail).toMatch(/must be a JSON object/);
    }
    expect(seen).toEqual([]);
  });

  it('should answer 404 for an unknown workflow, before reading its body', async () => {
    expect(await jsonOf(await post(url('x')))).toEqual({ status: 404, body: { detail: 'no workflow named "x" is registered here' } });
    const big = await jsonOf(await post(url('x'), { pad: 'y'.repeat(5000) }));
    expect(big.status).toBe(404);
  });

  it('should look up percent-decoded names', async () => {
    surface.workflows.set('pick & place/ü', () => 'ok');
    expect(await jsonOf(await post(url('pick & place/ü')))).toEqual({ status: 200, body: 'ok' });
    expect(surface.workflowLookups).toContain('pick & place/ü');
  });

  it("should keep the status and message of the product's errors and of other errors carrying a 4xx status", async () => {
    const cases: [Error, number][] = [
      [new ValueError('speed must be a number, got "fast"'), 400],
      [new OperationQueueEmpty('no queued Operation'), 404],
      [new HandoverPreconditionError('robot-1 does not possess workpiece-7'), 409],
      [new TransitionConflictError('Operation is running, not queued'), 409],
      [new RuntimeError('called outside resource mode'), 409],
      [
        new DeviceTimeoutError('device did not answer within 10000 ms', { target: 'unix:/run/d.sock', method: 'POST', path: '/x' }, 10),
        504,
      ],
      [Object.assign(new Error('speed is missing'), { status: 422 }), 422],
    ];
    for (const [err, status] of cases) {
      failWith(err);
      expect(await jsonOf(await post(url('fail')))).toEqual({ status, body: { detail: err.message } });
    }
  });

  it("should keep another error's 5xx status but answer its reason phrase, not its message", async () => {
    failWith(Object.assign(new Error('device answered 502: bridge down at 10.0.0.7'), { status: 502 }));
    expect(await jsonOf(await post(url('fail')))).toEqual({ status: 502, body: { detail: 'Bad Gateway' } });
    failWith(new DeviceTimeout('device did not answer within 10000 ms'));
    expect(await jsonOf(await post(url('fail')))).toEqual({ status: 504, body: { detail: 'Gateway Timeout' } });
  });

  it('should answer 500 "Internal Server Error" for plain errors and out-of-range statuses, never their message or a stack', async () => {
    const generic = { status: 500, body: { detail: 'Internal Server Error' } };
    failWith(new TypeError('cannot read gripper state'));
    expect(await jsonOf(await post(url('fail')))).toEqual(generic);
    failWith(Object.assign(new Error('odd status'), { status: 302 }));
    expect(await jsonOf(await post(url('fail')))).toEqual(generic);
    failWith('a thrown string');
    expect(await jsonOf(await post(url('fail')))).toEqual(generic);
  });

  it('should answer 500 JSON when the return value cannot be serialized', async () => {
    surface.workflows.set('bigint', () => 10n);
    const { status } = await jsonOf(await post(url('bigint')));
    expect(status).toBe(500);
  });

  it('should answer 400, 415 and 413 for bad bodies without calling the handler', async () => {
    expect((await jsonOf(await post(url('open'), '{"a": tru'))).status).toBe(400);
    const text = await fetch(url('open'), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'open it' });
    expect((await jsonOf(text)).status).toBe(415);
    expect((await jsonOf(await post(url('open'), { pad: 'z'.repeat(2000) }))).status).toBe(413);
    expect(seen).toEqual([]);
  });
});

describe('POST body limit default', () => {
  it('should default to LIMITS.httpBodyLimitBytes (1 MiB)', async () => {
    const surface = fakeSurface();
    surface.workflows.set('echo', (args) => Object.keys(args).length);
    const served = await serve(createApp(surface));
    try {
      const target = `${served.url}/workflows/echo/execute`;
      expect(await jsonOf(await post(target, { pad: 'a'.repeat(1_000_000) }))).toEqual({ status: 200, body: 1 });
      expect((await jsonOf(await post(target, { pad: 'a'.repeat(1_100_000) }))).status).toBe(413);
    } finally {
      await served.close();
    }
  });
});
