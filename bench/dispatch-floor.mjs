// The physical floor of one dispatched Operation, measured in the same run as the dispatch it
// bounds: the three writes no dispatch can do without (the create, the claim and the terminal
// write, as this build sends them), sent to the same `store serve` by a bare keep-alive client,
// plus one loopback HTTP hop (the trigger) to a bare node:http server. No discovery, no
// validation, no device call, no announcement: what is left when the middleware costs nothing.
// At library level (libraryFloor) the writes go straight to an embedded store in this process.
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
  try {
    // The body as the product sends an update: the text itself, no form encoding.
    const floor = await replayFloor(store, `urn:bench:floor:${process.pid}`, { n, warmup }, async (text, which, mustMatch) => {
      const answer = await barePost(agent, storeTarget, text, 'application/sparql-update');
      if (mustMatch && updateReport(answer) !== true) throw new Error(`replayed ${which} matched nothing: ${answer.slice(0, 200)}`);
    });
    return floor.ms;
  } finally {
    agent.destroy();
    await store.close();
  }
}

/**
 * The same floor at library level: the three writes sent straight to `store` (an embedded store
 * provisioned with the example plant, in this process), in `graph`, plus the bare HTTP hop.
 * Resolves with the milliseconds per Operation and this process's CPU per Operation (all of it:
 * store, hop client and server).
 */
export async function libraryFloor(store, { n, warmup, graph }) {
  // The check is the witness's business in the embedded store; a refused write fails the run.
  const check = { before: 'ASK {}', after: 'ASK {}' };
  return replayFloor(store, graph, { n, warmup }, async (text, which, mustMatch) => {
    if (!mustMatch) return store.update(text);
    if (!(await store.conditionalUpdate(text, check))) throw new Error(`replayed ${which} matched nothing`);
  });
}

/**
 * Replays the captured writes through `write(text, which, mustMatch)`, with the hop between
 * create and claim: milliseconds per Operation, and this process's CPU per Operation over the
 * replays (the warm-up's included).
 */
async function replayFloor(store, graph, { n, warmup }, write) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const hop = await bareHop();
  const captured = await captureLifecycleWrites(store, graph);
  try {
    const [create, claim, terminal] = captured.writes;
    const named = (text, operation) => text.split(captured.operation).join(operation);
    const cpu = process.cpuUsage();
    const ms = await timeEach(
      n,
      async (i, warm) => {
        const operation = `${captured.operation}_floor${warm ? 'w' : ''}${i}`;
        await write(named(create, operation), 'create', false);
        await barePost(agent, hop.target, JSON.stringify({ operation_iri: operation }), 'application/json');
        await write(named(claim, operation), 'claim', true);
        await write(named(terminal, operation), 'terminal', true);
      },
      warmup,
    );
    const used = process.cpuUsage(cpu);
    return { ms, cpuMsPerOp: (used.user + used.system) / 1000 / (n + warmup) };
  } finally {
    hop.close();
    agent.destroy();
    await captured.close();
  }
}
