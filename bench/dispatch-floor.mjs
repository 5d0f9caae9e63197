// The physical floor of one dispatched Operation, measured in the same run as the dispatch it
// bounds: the three writes no dispatch can do without (the create, the claim and the terminal
// write, as this build sends them), sent to the same `store serve` by a bare keep-alive client,
// plus one loopback HTTP hop (the trigger) to a bare node:http server. No discovery, no
// validation, no device call, no announcement: what is left when the middleware costs nothing.
import { Agent, createServer } from 'node:http';
import { once } from 'node:events';
import { updateReport } from '../dist/store/remote-store.js';
import { captureLifecycleWrites, openBenchStore } from './sidecar-inprocess.mjs';
import { barePost } from './sidecar-support.mjs';
import { timeEach } from './support.mjs';

/** A bare node:http server on loopback answering every request with `{}`: the trigger's hop. */
async function bareHop() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
      res.end('{}');
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const target = { hostname: '127.0.0.1', port: server.address().port, path: '/workflows/event_trigger/execute' };
  return { target, close: () => server.close() };
}

/**
 * Milliseconds per Operation of the floor, `n` of them after `warmup`, on the store at
 * `storeUrl` (already provisioned with the example plant). Each replay names a fresh Operation;
 * a replayed claim or terminal write whose WHERE matched nothing fails the run, since it would
 * not be the same work.
 */
export async function dispatchFloor(storeUrl, { n, warmup }) {
  const store = await openBenchStore(storeUrl, { provision: false });
  const { hostname, port, pathname } = new URL(storeUrl);
  const storeTarget = { hostname, port, path: pathname };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const hop = await bareHop();
  const captured = await captureLifecycleWrites(store, `urn:bench:floor:${process.pid}`);
  try {
    const [create, claim, terminal] = captured.writes;
    // The body as the product sends an update: the text itself, no form encoding.
    const write = async (text, operation, which, mustMatch) => {
      const answer = await barePost(agent, storeTarget, text.split(captured.operation).join(operation), 'application/sparql-update');
      if (mustMatch && updateReport(answer) !== true) throw new Error(`replayed ${which} matched nothing: ${answer.slice(0, 200)}`);
    };
    return await timeEach(
      n,
      async (i, warm) => {
        const operation = `${captured.operation}_floor${warm ? 'w' : ''}${i}`;
        await write(create, operation, 'create', false);
        await barePost(agent, hop.target, JSON.stringify({ operation_iri: operation }), 'application/json');
        await write(claim, operation, 'claim', true);
        await write(terminal, operation, 'terminal', true);
      },
      warmup,
    );
  } finally {
    hop.close();
    agent.destroy();
    await captured.close();
    await store.close();
  }
}
