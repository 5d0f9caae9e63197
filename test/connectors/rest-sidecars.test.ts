import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inf, plant, RDFS, sm, XSD } from '../../src/vocab/index.js';
import { ensureBuilt } from '../support/build.js';
import { ProcessGroup } from '../support/sidecar-process.js';
import { cellSuite, servedStore, startDoor1, virtuosoStore, type CellStore } from '../e2e/support/cell.js';
import { startSidecar, type SidecarProc } from '../e2e/support/daemons.js';
import { EX, getJson, lit } from './support.js';

// This file's own resource: suites on one Virtuoso run in parallel, and recognition reads every graph.
const READER = `${EX}sidecarReader`;
const TOKEN = `plant-${randomUUID()}`;

/** The reader's one parameter: door1's `door` state property, read over REST. */
const TURTLE = `
<${EX}seenDoor> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleRESTParameter}> ;
  <${RDFS('range')}> [ <http://www.w3.org/2002/07/owl#onProperty> <${inf.hasValue}> ; <http://www.w3.org/2002/07/owl#allValuesFrom> <${XSD('string')}> ] .
<${READER}> <${EX}seenDoor> [ <${sm.hasRESTPeer}> <${plant.door1}> ; <${sm.hasRESTPeerState}> ${lit('door')} ] .
`;

/**
 * Two real sidecars on one store: door1 (its bridge behind it, a token on its surface) and a
 * reader started with `--resource` alone, which serves door1's state through the REST binding.
 */
describe.each(['served', 'virtuoso'] as const)('a sidecar reading a peer sidecar over REST on the %s store', (kind) => {
  const { enabled, onStore } = cellSuite(kind);
  const group = new ProcessGroup();
  let dir: string;
  let store: CellStore | undefined;
  let tokenFile: string;

  beforeAll(async () => {
    if (!enabled) return;
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), `sm-rest-sidecars-${kind}-`));
    tokenFile = join(dir, 'plant-token');
    await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    store = kind === 'served' ? await servedStore(group) : await virtuosoStore(process.env.SPARQL_ENDPOINT!);
    await store.client.load(TURTLE, { graph: store.graph, format: 'text/turtle' });
  }, 180_000);

  afterAll(async () => {
    await group.cleanup();
    await store?.client.update(`DROP SILENT GRAPH <${store.graph}>`).catch(() => undefined);
    await store?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  const waitFor = async (condition: () => Promise<boolean>, what: string, proc: SidecarProc): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${proc.proc.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  onStore(
    'should serve the peer value with the outgoing token, say not ready once the peer stops, and leak nothing southbound',
    async () => {
      const door = await startDoor1(group, join(dir, 'door1'), store!, { args: ['--http-token-file', tokenFile] });
      const graph = kind === 'virtuoso' ? ['--graph', store!.graph] : [];
      const reader = await startSidecar(
        group,
        'reader',
        ['--resource', READER, '--store', store!.url, ...graph, '--port', '0', '--outgoing-token-file', tokenFile, '--log-level', 'info'],
        { cwd: dir },
      );
      const answers: unknown[] = [];
      const view = async (path: string) => {
        const answer = await getJson(`${reader.address}${path}`);
        answers.push(answer);
        return answer;
      };
      const ready = async (): Promise<boolean> => (await fetch(`${reader.address}/readyz`)).status === 200;
      await waitFor(
        async () => ['open', 'closed'].includes((await view('/parameters/seenDoor')).body.value as string),
        'the door state',
        reader,
      );
      expect(await ready()).toBe(true);
      expect((await view('/parameters')).body.parameters).toEqual([
        expect.objectContaining({ name: 'seenDoor', datatype: 'xsd:string', accessMode: 'read', writable: false, lastRejection: null }),
      ]);

      await door.sidecar.proc.kill('SIGTERM');
      await waitFor(async () => !(await ready()), 'the reader to say not ready', reader);
      answers.push(await view('/parameters'), await view('/parameters/seenDoor'));
      await reader.proc.kill('SIGTERM');

      const outputs = JSON.stringify(answers) + reader.proc.stdout + reader.proc.stderr;
      expect(outputs).toContain('seenDoor');
      const port = door.sidecar.port;
      for (const secret of [`:${port}`, `"${port}"`, `${port},`, plant.door1, TOKEN]) expect(outputs).not.toContain(secret);
    },
    90_000,
  );
});
