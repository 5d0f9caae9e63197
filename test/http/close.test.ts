import { describe, expect, it } from '@jest/globals';
import { Agent, request } from 'node:http';
import { closeServer } from '../../src/http/close.js';
import { listen } from '../../src/http/listen.js';

/**
 * A server whose `/hang` never answers and whose `/slow` answers after `slowMs`; `arrived()`
 * resolves once it has received a request (so a close is sure to find it open).
 */
async function server(slowMs = 150) {
  let arrive: () => void = () => undefined;
  const arrival = new Promise<void>((resolve) => (arrive = resolve));
  const listening = await listen(
    (req, res) => {
      arrive();
      if (req.url === '/slow') setTimeout(() => res.end('slow'), slowMs);
      else if (req.url !== '/hang') res.end('ok');
    },
    { host: '127.0.0.1', port: 0 },
  );
  return { ...listening, arrived: () => arrival };
}

/** GETs `path` on a keep-alive agent; resolves with the body, or the error's code. */
function get(port: number, path: string, agent: Agent): Promise<string> {
  return new Promise((resolve) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
      res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    })
      .on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
      .end();
  });
}

async function timed(work: Promise<void>): Promise<number> {
  const started = performance.now();
  await work;
  return performance.now() - started;
}

describe('closeServer', () => {
  it('should drop idle keep-alive connections at once', async () => {
    const { server: s, port } = await server();
    const agent = new Agent({ keepAlive: true });
    expect(await get(port, '/', agent)).toBe('ok');
    // The connection is idle now; Node would keep it for its 5 s keep-alive timeout.
    expect(await timed(closeServer(s, 5_000))).toBeLessThan(1_000);
    agent.destroy();
  });

  it('should bound the time a hung request holds the close to the grace period', async () => {
    const { server: s, port, arrived } = await server();
    const agent = new Agent({ keepAlive: true });
    const hung = get(port, '/hang', agent);
    await arrived();
    const ms = await timed(closeServer(s, 300));
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(2_000);
    expect(await hung).toBe('ECONNRESET');
    agent.destroy();
  });

  it('should let an open request finish within the grace, and close soon after it', async () => {
    const { server: s, port, arrived } = await server(150);
    const agent = new Agent({ keepAlive: true });
    const slow = get(port, '/slow', agent);
    await arrived();
    const ms = await timed(closeServer(s, 5_000));
    expect(await slow).toBe('slow');
    // Closed once the answer went out, not when the grace or the keep-alive timeout ran out.
    expect(ms).toBeLessThan(1_500);
    agent.destroy();
  });

  it('should do nothing for a server that is not listening', async () => {
    const { server: s } = await server();
    await closeServer(s, 0);
    await expect(closeServer(s, 0)).resolves.toBeUndefined();
  });
});
