import { describe, expect } from '@jest/globals';
import { TransitionConflictError } from '../../src/errors.js';
import { mintOperationIri } from '../../src/iri/index.js';
import { createOperation, recordTerminalStatus, revertOperation, setOperationStatus } from '../../src/registration/operations.js';
import { plant, svc } from '../../src/vocab/index.js';
import { addService, OPEN_DOOR, rejection, storeSuite } from './support/plant-graph.js';

/**
 * revertOperation applies only to an Operation that still holds the status it was created with
 * (operations.ts): when a receiver took the Operation although the caller never saw its answer
 * (the trigger timed out, the connection dropped), the caller's revert must leave it whole.
 * Before, the revert removed its type, Capability and data and left the receiver's status and
 * provenance on an untyped node, which no reconstruction or sweep finds again
 * (test/faults/store-outage.test.ts shows it with real processes).
 */

const G = 'urn:test:registration:revert-guard';

describe.each(['embedded', 'remote'] as const)('revertOperation on the %s store', (kind) => {
  const suite = storeSuite(kind, G);
  const { onStore } = suite;

  onStore('should revert a queued Operation, and leave one its receiver claimed or finished whole', async () => {
    const door = await addService(suite.ogm, { resourceIri: plant.door1, address: 'http://127.0.0.1:8102', workflows: [OPEN_DOOR] });
    const { capabilityIri, workflowIri } = door.workflows[0]!;
    const input = (operationIri: string) => ({ operationIri, operationClass: plant.OpenDoorOperation, capabilityIri });
    const create = async (): Promise<string> => {
      const operationIri = mintOperationIri(plant.OpenDoorOperation);
      await createOperation(suite.ogm, input(operationIri));
      return operationIri;
    };
    const triples = async (iri: string): Promise<number> =>
      (await suite.store!.select(`SELECT ?p ?o WHERE { GRAPH <${G}> { <${iri}> ?p ?o } }`)).length;

    const queued = await create();
    await revertOperation(suite.ogm, input(queued));
    expect(await triples(queued)).toBe(0);
    // Reverting again: there is nothing to revert, and it says so.
    const again = await rejection(revertOperation(suite.ogm, input(queued)));
    expect(again).toBeInstanceOf(TransitionConflictError);
    expect((again as Error).message).toBe(
      `Operation <${queued}> was not reverted: it is no longer 'queued' (its receiver took it already) or does not exist`,
    );

    const claimed = await create();
    await setOperationStatus(suite.ogm, { operationIri: claimed, status: 'running' });
    const finished = await create();
    await setOperationStatus(suite.ogm, { operationIri: finished, status: 'running' });
    await recordTerminalStatus(suite.ogm, { operationIri: finished, workflowIri, status: 'done', result: 'opened' });
    for (const [iri, status] of [
      [claimed, 'running'],
      [finished, 'done'],
    ] as const) {
      const before = await triples(iri);
      expect(await rejection(revertOperation(suite.ogm, input(iri)))).toBeInstanceOf(TransitionConflictError);
      expect(await triples(iri)).toBe(before);
      const rows = await suite.store!.select(`SELECT ?st WHERE { GRAPH <${G}> { <${iri}> <${svc.operationStatus}> ?st } }`);
      expect(rows.map((r) => r.st!.value)).toEqual([status]);
    }
    // The claimed one still moves on: the receiver's terminal write applies.
    await recordTerminalStatus(suite.ogm, { operationIri: claimed, workflowIri, status: 'done', result: 'opened' });
  });
});
