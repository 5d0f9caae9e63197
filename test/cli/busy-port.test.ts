import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cli } from './support/cli-process.js';

// A port another process holds is the commonest start-up failure on a gateway: the answer must
// say what to do, not show Node's raw EADDRINUSE.
describe('start and watchdog on a busy port', () => {
  let holder: Server;
  let port: number;

  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it.each([
    ['start', ['start', '--resource', 'https://example.org/plant#door1']],
    ['watchdog', ['watchdog']],
  ])('%s should exit non-zero naming the address and what to do', (_name, args) => {
    const result = cli([...args, '--store', 'memory', '--host', '127.0.0.1', '--port', String(port)]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`127.0.0.1:${port} is already in use`);
    expect(result.stderr).toContain('pick another port');
    expect(result.stderr).not.toContain('EADDRINUSE');
  });
});
