/**
 * Store requests per dispatched Operation, caller and receiver together, counted by the
 * MeasuredStore wrapper each side's OGM writes through: discovery, create, claim and terminal
 * write, and nothing else; discovery not even that while the caller remembers what it found. The idle receiver claims inside the trigger instead of reading the
 * Operation first, and the waiting caller (it requests with `wait`) is told the outcome over the
 * trigger's channel instead of reading the store.
 */
import { describe, expect } from '@jest/globals';
import { MeasuredStore, type StoreRequestKind } from '../../src/store/measured-store.js';
import { mintWorkflowIri } from '../../src/iri/index.js';
import { plant } from '../../src/vocab/index.js';
import { middlewareSuite, OPEN_REQUEST } from './support/harness.js';

const G = 'urn:test:middleware:requests-per-operation';
/** At most this many store requests per Operation, caller and receiver together: discovery, create, claim and terminal write. */
const MAX_REQUESTS_PER_OPERATION = 4;
const OPERATIONS = 10;

describe.each(['embedded', 'remote'] as const)('store requests per Operation on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  /** A door1 receiver and a robot1 caller, each counting its own store requests by kind. */
  async function pair(
    work: Parameters<ReturnType<typeof suite.controller>['registerCallback']>[0] = ({ data }) => ({ opened: data.testAngle ?? null }),
    discoveryCacheMs = 0,
  ): Promise<{ door: ReturnType<typeof suite.controller>; robot: ReturnType<typeof suite.create>; counted: StoreRequestKind[] }> {
    const counted: StoreRequestKind[] = [];
    const measured = (): MeasuredStore => {
      const store = new MeasuredStore(suite.store!);
      store.observe((k) => counted.push(k));
      return store;
    };
    const door = suite.controller({ heartbeatInterval: null, ogm: suite.newOgm(measured()) });
    door.registerCallback(work);
    await door.start();
    const robot = suite.create({
      resourceIri: plant.robot1,
      serviceClass: plant.ControllerService,
      heartbeatInterval: null,
      discoveryCacheMs,
      ogm: suite.newOgm(measured()),
    });
    await robot.start();
    return { door, robot, counted };
  }

  // A terminal status is read once, or until two reads agree where reads may tear (Virtuoso).
  const checkReads = (): number => (suite.store!.readsMayTear === true ? 2 : 1);

  /** Requests `OPERATIONS` Operations one after another, each waited for; the store requests each cost, in order. */
  async function dispatchCounted(discoveryCacheMs: number): Promise<StoreRequestKind[]> {
    const { door, robot, counted } = await pair(undefined, discoveryCacheMs);
    // Warm: the OGMs' ontology caches are filled once per process, not per Operation.
    await robot.waitForOperation(await robot.request({ ...OPEN_REQUEST, wait: true }), { timeoutMs: 10_000 });
    counted.length = 0;
    for (let i = 0; i < OPERATIONS; i++) {
      const op = await robot.request({ ...OPEN_REQUEST, wait: true }, (draft) => void (draft.data.testAngle = i));
      const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
      expect(outcome).toMatchObject({
        status: 'done',
        result: JSON.stringify({ opened: i }),
        workflowIri: mintWorkflowIri(door.serviceIri!, 'open'),
      });
      // The announced outcome is what the store holds.
      const before = counted.length;
      expect(await robot.readOperation(op)).toEqual(outcome);
      expect(counted.length - before).toBe(checkReads());
      counted.length = before; // that check's own reads
    }
    return counted;
  }

  onStore(`should cost at most ${MAX_REQUESTS_PER_OPERATION} store requests per Operation, the waiting caller included`, async () => {
    const counted = await dispatchCounted(0);
    expect(counted.length / OPERATIONS).toBeLessThanOrEqual(MAX_REQUESTS_PER_OPERATION);
    // Discovery and create by the caller, claim and terminal write by the receiver: no route read, no fetch, no status read.
    expect(counted.slice(0, 4)).toEqual(['select', 'update', 'conditional_update', 'conditional_update']);
  });

  onStore('should cost 3 store requests per Operation while the caller remembers what discovery found', async () => {
    const counted = await dispatchCounted(60_000);
    // The warm-up's discovery is remembered: create, claim and terminal write, and no read at all.
    expect(counted).toEqual(Array.from({ length: OPERATIONS }, () => ['update', 'conditional_update', 'conditional_update']).flat());
  });

  onStore('should wake a waiter with a failure exactly as the store holds it', async () => {
    const { robot, counted } = await pair(() => {
      throw new Error('motor stalled');
    });
    const op = await robot.request({ ...OPEN_REQUEST, deadline: new Date(Date.now() + 60_000), wait: true });
    const outcome = await robot.waitForOperation(op, { timeoutMs: 10_000 });
    const reads = counted.length;
    expect(outcome).toMatchObject({ status: 'failed', result: 'motor stalled', failureKind: 'error' });
    expect(outcome.deadline).toBeInstanceOf(Date);
    expect(await robot.readOperation(op)).toEqual(outcome);
    expect(counted.length).toBe(reads + checkReads());
  });
});
