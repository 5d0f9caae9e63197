import { describe, expect, jest } from '@jest/globals';
import { HandoverPreconditionError, RuntimeError } from '../../src/middleware/index.js';
import { createPossession, currentPossessor } from '../../src/registration/index.js';
import { mes, PLANT, plant } from '../../src/vocab/index.js';
import { rejection } from '../support/per-store.js';
import { middlewareSuite } from './support/harness.js';

const G = 'urn:test:middleware:handover';
const PART = PLANT('part7');

describe.each(['embedded', 'remote'] as const)('handover between middleware instances on the %s store', (kind) => {
  const suite = middlewareSuite(kind, G);
  const { onStore } = suite;

  async function cell() {
    const ogm = suite.newOgm();
    await ogm.create({ iri: PART, type: plant.Part });
    await createPossession(ogm, { workpieceIri: PART, possessorIri: plant.robot1 });
    const robot = suite.create({ resourceIri: plant.robot1, serviceClass: plant.ControllerService, activityFeed: true });
    const conveyor = suite.create({ resourceIri: plant.conveyor1, serviceClass: plant.ControllerService });
    await Promise.all([robot.start(), conveyor.start()]);
    return { robot, conveyor, possessor: async () => (await currentPossessor(suite.newOgm(), PART))! };
  }

  onStore('should hand a workpiece over and back, each after its body', async () => {
    const { robot, conveyor, possessor } = await cell();
    const order: string[] = [];
    const put = await robot.handover({ mode: mes.Put, workpiece: PART, counterpart: plant.conveyor1 }, async () => {
      order.push(`body while ${(await possessor()).possessors.join()}`);
    });
    expect(await possessor()).toEqual({ possessionState: put, possessors: [plant.conveyor1] });
    expect(put.startsWith(`${PART}_possession_`)).toBe(true);
    // Back: the conveyor releases, the robot picks (Pick complements Release).
    const back = await conveyor.handover({ mode: mes.Release, workpiece: PART, counterpart: plant.robot1 });
    expect(await possessor()).toEqual({ possessionState: back, possessors: [plant.robot1] });
    expect(order).toEqual([`body while ${plant.robot1}`]);
    expect(robot.activity!.entries().entries.filter((e) => e.kind === 'handover')).toEqual([
      expect.objectContaining({ workpiece: PART, from: plant.robot1, to: plant.conveyor1, possessionState: put }),
    ]);
  });

  onStore('should refuse before the body when a precondition fails, naming which', async () => {
    const { robot, conveyor, possessor } = await cell();
    const before = await possessor();
    const body = jest.fn();
    const notMine = await rejection(conveyor.handover({ mode: mes.Release, workpiece: PART, counterpart: plant.robot1 }, body));
    expect(notMine).toBeInstanceOf(HandoverPreconditionError);
    expect((notMine as Error).message).toContain(
      `<${plant.conveyor1}> does not possess workpiece <${PART}> (it is possessed by <${plant.robot1}>)`,
    );
    expect((notMine as Error).message).not.toContain('has no mes:hasHandoverAbility');
    // conveyor2 can Retrieve and Pass, neither of which complements Put.
    const noAbility = await rejection(robot.handover({ mode: mes.Put, workpiece: PART, counterpart: plant.conveyor2 }, body));
    expect(noAbility).toBeInstanceOf(HandoverPreconditionError);
    expect((noAbility as Error).message).toContain(
      `counterpart <${plant.conveyor2}> has no mes:hasHandoverAbility that mes:complements <${mes.Put}>`,
    );
    expect((noAbility as Error).message).not.toContain('does not possess');
    const both = await rejection(conveyor.handover({ mode: mes.Put, workpiece: PART, counterpart: plant.conveyor2 }, body));
    expect((both as Error).message).toMatch(/does not possess.*; counterpart .* has no/);
    expect(body).not.toHaveBeenCalled();
    expect(await possessor()).toEqual(before);
  });

  onStore('should not switch when the body throws, and refuse outside resource mode', async () => {
    const { robot, possessor } = await cell();
    const before = await possessor();
    const error = await rejection(
      robot.handover({ mode: mes.Put, workpiece: PART, counterpart: plant.conveyor1 }, () => {
        throw new Error('gripper slipped');
      }),
    );
    expect((error as Error).message).toBe('gripper slipped');
    expect(await possessor()).toEqual(before);
    const watchdog = suite.create({ mode: 'watchdog', sweepInterval: 3600 });
    expect(await rejection(watchdog.handover({ mode: mes.Put, workpiece: PART, counterpart: plant.conveyor1 }))).toBeInstanceOf(
      RuntimeError,
    );
  });
});
