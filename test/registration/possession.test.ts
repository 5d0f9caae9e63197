import { describe, expect } from '@jest/globals';
import { StoreError, TransitionConflictError, ValidationError, ValueError } from '../../src/errors.js';
import { OGM } from '../../src/ogm/index.js';
import {
  counterpartHasComplementaryAbility,
  createPossession,
  currentPossessor,
  findPossessionState,
  switchPossession,
} from '../../src/registration/possession.js';
import { namedNode } from '../../src/store/terms.js';
import type { ConditionalUpdateCheck, TripleStore } from '../../src/store/triple-store.js';
import { cfc, mes, ONTOLOGY_GRAPHS, plant, PLANT } from '../../src/vocab/index.js';
import { storeSuite } from '../support/per-store.js';

const G = 'urn:test:possession';
const G2 = 'urn:test:possession-other';
const SHAPES = ONTOLOGY_GRAPHS.shapes;
const STATE_IRI = /_possession_[0-9a-f]{12}$/u;

const HOSTILE = [
  'https://example.org/a>b',
  'https://example.org/a b',
  'https://example.org/a"b',
  'https://example.org/a{b}',
  'https://example.org/x> } ; DROP ALL ; #',
  'not an iri',
  '',
  'https://example.org/a\nb',
];

/** Where a {@link faulty} store drops a request: an update before it is sent, a commit before or after it applied. */
type Fault = 'append' | 'commit-lost' | 'commit-applied-reply-lost';

/** The store with one kind of request failing as a dropped connection would (an injected fake). */
function faulty(store: TripleStore, fault: Fault): TripleStore {
  const dropped = (): StoreError => new StoreError('request failed: other side closed (injected)');
  return {
    description: store.description,
    get requestCount() {
      return store.requestCount;
    },
    select: (q: string) => store.select(q),
    ask: (q: string) => store.ask(q),
    update: async (u: string) => {
      if (fault === 'append' && u.startsWith('INSERT DATA') && u.includes(cfc.hasPossessor)) throw dropped();
      return store.update(u);
    },
    conditionalUpdate: async (u: string, c: ConditionalUpdateCheck) => {
      if (fault === 'commit-lost') throw dropped();
      const applied = await store.conditionalUpdate(u, c);
      if (fault === 'commit-applied-reply-lost') throw dropped();
      return applied;
    },
    load: (d, o) => store.load(d, o),
    dump: (o) => store.dump(o),
    close: () => Promise.resolve(),
  };
}

describe.each(['embedded', 'remote'] as const)('possession on the %s store', (kind) => {
  const suite = storeSuite(kind, G, { extraGraphs: [G2] });
  const { onStore } = suite;
  let seq = 0;

  /** A fresh workpiece IRI per use: the OGM caches types, and graphs are dropped between tests. */
  const freshIri = (name: string): string => PLANT(`${name}_${kind}_${Date.now()}_${seq++}`);

  async function part(graph = G): Promise<string> {
    const iri = freshIri('part');
    await suite.ogm.create({ iri, type: plant.Part, graph });
    return iri;
  }

  const dump = async (graph = G): Promise<string[]> => (await suite.store!.dump({ graph })).split('\n').filter(Boolean).sort();

  async function pointers(workpiece: string, graph = G): Promise<string[]> {
    const rows = await suite.store!.select(`SELECT ?ps WHERE { GRAPH <${graph}> { <${workpiece}> <${cfc.hasPossessedWorkpiece}> ?ps } }`);
    return rows.map((r) => r.ps!.value);
  }

  async function states(graph = G): Promise<string[]> {
    const rows = await suite.store!.select(`SELECT ?s WHERE { GRAPH <${graph}> { ?s a <${cfc.PossessionState}> } }`);
    return rows.map((r) => r.s!.value).sort();
  }

  /** Every IRI minted for the workpiece's states that still occurs in the graph, as subject or object. */
  async function stateSubjects(workpiece: string, graph = G): Promise<string[]> {
    const rows = await suite.store!.select(
      `SELECT DISTINCT ?x WHERE { GRAPH <${graph}> { { ?x ?p ?o } UNION { ?s ?p ?x } FILTER(isIRI(?x) && STRSTARTS(STR(?x), "${workpiece}_possession_")) } }`,
    );
    return rows.map((r) => r.x!.value).sort();
  }

  async function possessorLinks(graph = G): Promise<[string, string][]> {
    const rows = await suite.store!.select(`SELECT ?who ?ps WHERE { GRAPH <${graph}> { ?who <${cfc.hasPossessor}> ?ps } }`);
    return rows.map((r): [string, string] => [r.who!.value, r.ps!.value]).sort();
  }

  async function rejection(p: Promise<unknown>): Promise<unknown> {
    return p.then(
      () => undefined,
      (e: unknown) => e,
    );
  }

  /** Runs a write that must fail, and checks the graph is unchanged; returns the error and the write's request count. */
  async function expectUnchanged(
    write: () => Promise<unknown>,
    errorClass: new (...args: never[]) => Error,
    pattern: RegExp,
  ): Promise<{ error: Error; requests: number }> {
    const before = await dump();
    const start = suite.store!.requestCount;
    const error = await rejection(write());
    const requests = suite.store!.requestCount - start;
    expect(error).toBeInstanceOf(errorClass);
    expect((error as Error).message).toMatch(pattern);
    expect(await dump()).toEqual(before);
    return { error: error as Error, requests };
  }

  onStore('should create a first possession in three requests', async () => {
    const wp = await part();
    const before = suite.store!.requestCount;
    const state = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    expect(suite.store!.requestCount - before).toBe(3);
    expect(state.startsWith(`${wp}_possession_`)).toBe(true);
    expect(state).toMatch(STATE_IRI);
    expect(await pointers(wp)).toEqual([state]);
    expect(await states()).toEqual([state]);
    expect(await possessorLinks()).toEqual([[plant.robot1, state]]);
  });

  onStore('should write into the named graph and leave the OGM graph alone', async () => {
    const wp = await part(G2);
    const state = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G2 });
    expect(await pointers(wp, G2)).toEqual([state]);
    expect(await dump(G)).toEqual([]);
    expect(await findPossessionState(suite.ogm, wp, plant.robot1, { namedGraph: G2 })).toBe(state);
    expect(await findPossessionState(suite.ogm, wp, plant.robot1)).toBeUndefined();
    const next = await switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.conveyor1, namedGraph: G2 });
    expect(await pointers(wp, G2)).toEqual([next]);
    expect(await dump(G)).toEqual([]);
  });

  onStore('should find the current possession state of a possessor in one query', async () => {
    const wp = await part();
    expect(await findPossessionState(suite.ogm, wp, plant.robot1, { namedGraph: G })).toBeUndefined();
    const state = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    const before = suite.store!.requestCount;
    expect(await findPossessionState(suite.ogm, wp, plant.robot1, { namedGraph: G })).toBe(state);
    expect(suite.store!.requestCount - before).toBe(1);
    expect(await findPossessionState(suite.ogm, wp, plant.conveyor1, { namedGraph: G })).toBeUndefined();
    const next = await switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.conveyor1, namedGraph: G });
    // The old state is history: the previous possessor no longer holds the workpiece.
    expect(await findPossessionState(suite.ogm, wp, plant.robot1, { namedGraph: G })).toBeUndefined();
    expect(await findPossessionState(suite.ogm, wp, plant.conveyor1, { namedGraph: G })).toBe(next);
  });

  onStore('should report the current possessor in one query', async () => {
    const wp = await part();
    let before = suite.store!.requestCount;
    expect(await currentPossessor(suite.ogm, wp, { namedGraph: G })).toBeUndefined();
    expect(suite.store!.requestCount - before).toBe(1);
    const state = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    before = suite.store!.requestCount;
    expect(await currentPossessor(suite.ogm, wp, { namedGraph: G })).toEqual({ possessionState: state, possessors: [plant.robot1] });
    expect(suite.store!.requestCount - before).toBe(1);
  });

  onStore('should switch possession from A to B and keep A’s state as history', async () => {
    const wp = await part();
    const first = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    let before = suite.store!.requestCount;
    const second = await switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.conveyor1, namedGraph: G });
    expect(suite.store!.requestCount - before).toBe(4); // reads the current state first
    expect(second).toMatch(STATE_IRI);
    expect(second).not.toBe(first);
    expect(await pointers(wp)).toEqual([second]);
    expect(await states()).toEqual([first, second].sort());
    expect(await possessorLinks()).toEqual(
      [
        [plant.robot1, first],
        [plant.conveyor1, second],
      ].sort(),
    );
    before = suite.store!.requestCount;
    const third = await switchPossession(suite.ogm, {
      workpieceIri: wp,
      newPossessorIri: plant.conveyor2,
      expectedPossessionState: second,
      namedGraph: G,
    });
    expect(suite.store!.requestCount - before).toBe(3);
    expect(await pointers(wp)).toEqual([third]);
    expect(await states()).toHaveLength(3);
    expect(await currentPossessor(suite.ogm, wp, { namedGraph: G })).toEqual({ possessionState: third, possessors: [plant.conveyor2] });
  });

  onStore('should refuse createPossession on a possessed workpiece and leave the graph unchanged', async () => {
    const wp = await part();
    const state = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    const { error, requests } = await expectUnchanged(
      () => createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.conveyor1, namedGraph: G }),
      TransitionConflictError,
      /already possessed.*switchPossession/u,
    );
    expect((error as TransitionConflictError).code).toBe('SM_CONFLICT');
    expect(requests).toBe(4); // create, append, the guarded commit that lost, one DELETE DATA
    expect(await pointers(wp)).toEqual([state]);
  });

  onStore('should refuse a switch from a stale expected state and leave the prior possession intact', async () => {
    const wp = await part();
    const first = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    const second = await switchPossession(suite.ogm, {
      workpieceIri: wp,
      newPossessorIri: plant.conveyor1,
      expectedPossessionState: first,
      namedGraph: G,
    });
    const { requests } = await expectUnchanged(
      () =>
        switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.conveyor2, expectedPossessionState: first, namedGraph: G }),
      TransitionConflictError,
      /no longer points at possession state/u,
    );
    expect(requests).toBe(4);
    expect(await pointers(wp)).toEqual([second]);
    expect(await states()).toEqual([first, second].sort());
    expect(await findPossessionState(suite.ogm, wp, plant.conveyor1, { namedGraph: G })).toBe(second);
  });

  onStore('should refuse to switch a workpiece nobody possesses', async () => {
    const wp = await part();
    const { requests } = await expectUnchanged(
      () => switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.conveyor1, namedGraph: G }),
      TransitionConflictError,
      /not possessed.*createPossession/u,
    );
    expect(requests).toBe(1); // the read of the current state only
  });

  onStore(
    'should let exactly one of ten concurrent switches win, repeatedly, leaving no orphan state',
    async () => {
      const wp = await part();
      const holders = Array.from({ length: 10 }, (_, i) => PLANT(`holder${i}`));
      let current = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
      const history = [current];
      for (let round = 0; round < 5; round++) {
        const results = await Promise.allSettled(
          holders.map((h) =>
            switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: h, expectedPossessionState: current, namedGraph: G }),
          ),
        );
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [[holders[i]!, r.value] as const] : []));
        const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(9);
        for (const e of lost) expect(e).toBeInstanceOf(TransitionConflictError);
        const [winner, state] = won[0]!;
        history.push(state);
        expect(await pointers(wp)).toEqual([state]);
        expect(await states()).toEqual([...history].sort());
        // No triple of a loser's state survives (its types, owl:NamedIndividual, its possessor link).
        expect(await stateSubjects(wp)).toEqual([...history].sort());
        const links = await possessorLinks();
        expect(links).toHaveLength(history.length);
        expect(links).toContainEqual([winner, state]);
        expect(await currentPossessor(suite.ogm, wp, { namedGraph: G })).toEqual({ possessionState: state, possessors: [winner] });
        current = state;
      }
    },
    120_000,
  );

  onStore('should remove the new state when a write fails before the re-point applied', async () => {
    const wp = await part();
    const first = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    for (const fault of ['append', 'commit-lost'] as const) {
      const broken = new OGM({ store: faulty(suite.store!, fault), graph: G, shapesGraph: SHAPES });
      await expectUnchanged(
        () =>
          switchPossession(broken, { workpieceIri: wp, newPossessorIri: plant.conveyor1, expectedPossessionState: first, namedGraph: G }),
        StoreError,
        /other side closed/u,
      );
    }
    expect(await pointers(wp)).toEqual([first]);
  });

  onStore('should count a re-point that applied as done when only its reply was lost', async () => {
    const wp = await part();
    const first = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    const broken = new OGM({ store: faulty(suite.store!, 'commit-applied-reply-lost'), graph: G, shapesGraph: SHAPES });
    const next = await switchPossession(broken, {
      workpieceIri: wp,
      newPossessorIri: plant.conveyor1,
      expectedPossessionState: first,
      namedGraph: G,
    });
    expect(await pointers(wp)).toEqual([next]);
    expect(await states()).toEqual([first, next].sort());
    expect(await findPossessionState(suite.ogm, wp, plant.conveyor1, { namedGraph: G })).toBe(next);
  });

  suite.it.each([
    ['Put', 'Receive', mes.Put, plant.conveyor1],
    ['Receive', 'Put', mes.Receive, plant.robot1],
    ['Pick', 'Release', mes.Pick, plant.conveyor1],
    ['Release', 'Pick', mes.Release, plant.robot1],
    ['Pass', 'Retrieve', mes.Pass, plant.conveyor2],
    ['Retrieve', 'Pass', mes.Retrieve, plant.conveyor1],
  ])('should find a complementary ability: %s against a counterpart with %s', async (_mode, _has, mode, counterpart) => {
    const before = suite.store!.requestCount;
    expect(await counterpartHasComplementaryAbility(suite.ogm, counterpart, mode, { namedGraph: G })).toBe(true);
    expect(suite.store!.requestCount - before).toBe(1);
  });

  suite.it.each([
    ['Put', 'has Retrieve and Pass', mes.Put, plant.conveyor2],
    ['Pick', 'has Retrieve and Pass', mes.Pick, plant.conveyor2],
    ['Retrieve', 'has Pick and Put', mes.Retrieve, plant.robot1],
    ['Put', 'has Put itself, not Receive', mes.Put, plant.robot1],
    ['Put', 'has no handover ability', mes.Put, plant.door1],
    ['Put', 'is unknown', mes.Put, PLANT('nobody')],
    ['an unknown mode', 'has abilities', PLANT('NoSuchAbility'), plant.conveyor1],
  ])('should find no complementary ability: %s against a counterpart that %s', async (_mode, _what, mode, counterpart) => {
    expect(await counterpartHasComplementaryAbility(suite.ogm, counterpart, mode, { namedGraph: G })).toBe(false);
  });

  onStore('should find a handover ability stated in the data graph as well as in the plant graph', async () => {
    const station = freshIri('station');
    expect(await counterpartHasComplementaryAbility(suite.ogm, station, mes.Put, { namedGraph: G })).toBe(false);
    await suite.ogm.create({
      iri: station,
      type: plant.Conveyor,
      graph: G,
      properties: { [mes.hasHandoverAbility]: [namedNode(mes.Receive)] },
    });
    expect(await counterpartHasComplementaryAbility(suite.ogm, station, mes.Put, { namedGraph: G })).toBe(true);
    expect(await counterpartHasComplementaryAbility(suite.ogm, station, mes.Pick, { namedGraph: G })).toBe(false);
    // The plant's individuals live in the example plant's graph, not in the data graph.
    expect(await suite.store!.ask(`ASK { GRAPH <${ONTOLOGY_GRAPHS.plant}> { <${plant.conveyor1}> <${mes.hasHandoverAbility}> ?a } }`)).toBe(
      true,
    );
    expect(await counterpartHasComplementaryAbility(suite.ogm, plant.conveyor1, mes.Put, { namedGraph: G })).toBe(true);
  });

  onStore('should honour mes:complements asserted in one direction only', async () => {
    const station = freshIri('station');
    const give = freshIri('GiveAbility');
    const take = freshIri('TakeAbility');
    await suite.ogm.create({ iri: station, type: plant.Conveyor, graph: G2, properties: { [mes.hasHandoverAbility]: [namedNode(take)] } });
    await suite.store!.update(`INSERT DATA { GRAPH <${G2}> { <${give}> <${mes.complements}> <${take}> . } }`);
    expect(await counterpartHasComplementaryAbility(suite.ogm, station, give, { namedGraph: G })).toBe(true);
    const robot = freshIri('robot');
    await suite.ogm.create({ iri: robot, type: plant.Robot, graph: G2, properties: { [mes.hasHandoverAbility]: [namedNode(give)] } });
    expect(await counterpartHasComplementaryAbility(suite.ogm, robot, take, { namedGraph: G })).toBe(true);
  });

  onStore('should refuse hostile IRIs with a ValueError before sending anything', async () => {
    const wp = await part();
    const state = await createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G });
    const calls = (bad: string): [string, () => Promise<unknown>][] => [
      [
        'createPossession workpieceIri',
        () => createPossession(suite.ogm, { workpieceIri: bad, possessorIri: plant.robot1, namedGraph: G }),
      ],
      ['createPossession possessorIri', () => createPossession(suite.ogm, { workpieceIri: wp, possessorIri: bad, namedGraph: G })],
      [
        'createPossession namedGraph',
        () => createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: bad || ' ' }),
      ],
      [
        'switchPossession workpieceIri',
        () => switchPossession(suite.ogm, { workpieceIri: bad, newPossessorIri: plant.conveyor1, namedGraph: G }),
      ],
      ['switchPossession newPossessorIri', () => switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: bad, namedGraph: G })],
      [
        'switchPossession expected',
        () =>
          switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.conveyor1, expectedPossessionState: bad, namedGraph: G }),
      ],
      [
        'switchPossession namedGraph',
        () => switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.conveyor1, namedGraph: bad || ' ' }),
      ],
      ['findPossessionState workpieceIri', () => findPossessionState(suite.ogm, bad, plant.robot1, { namedGraph: G })],
      ['findPossessionState possessorIri', () => findPossessionState(suite.ogm, wp, bad, { namedGraph: G })],
      ['findPossessionState namedGraph', () => findPossessionState(suite.ogm, wp, plant.robot1, { namedGraph: bad || ' ' })],
      ['currentPossessor workpieceIri', () => currentPossessor(suite.ogm, bad, { namedGraph: G })],
      ['currentPossessor namedGraph', () => currentPossessor(suite.ogm, wp, { namedGraph: bad || ' ' })],
      ['counterpart counterpartIri', () => counterpartHasComplementaryAbility(suite.ogm, bad, mes.Put, { namedGraph: G })],
      ['counterpart modeAbilityIri', () => counterpartHasComplementaryAbility(suite.ogm, plant.conveyor1, bad, { namedGraph: G })],
      ['counterpart namedGraph', () => counterpartHasComplementaryAbility(suite.ogm, plant.conveyor1, mes.Put, { namedGraph: bad || ' ' })],
    ];
    const before = await dump();
    for (const bad of HOSTILE) {
      for (const [where, call] of calls(bad)) {
        const requests = suite.store!.requestCount;
        const error = await rejection(call());
        expect([where, bad, error]).toEqual([where, bad, expect.any(ValueError)]);
        expect([where, bad, suite.store!.requestCount - requests]).toEqual([where, bad, 0]);
      }
    }
    expect(await dump()).toEqual(before);
    expect(await pointers(wp)).toEqual([state]);
    // Store-wide, since a hostile graph name could land anywhere; "DROP ALL" holds a space, which no valid IRI
    // written by a parallel test can contain.
    expect(
      await suite.store!.ask('ASK { GRAPH ?g { ?s ?p ?o FILTER(CONTAINS(STR(?s), "DROP ALL") || CONTAINS(STR(?g), "DROP ALL")) } }'),
    ).toBe(false);
  });

  onStore('should refuse an untyped workpiece with a clear validation error and write nothing', async () => {
    const wp = freshIri('untyped');
    for (const write of [
      () => createPossession(suite.ogm, { workpieceIri: wp, possessorIri: plant.robot1, namedGraph: G }),
      () => switchPossession(suite.ogm, { workpieceIri: wp, newPossessorIri: plant.robot1, namedGraph: G }),
    ]) {
      const { error, requests } = await expectUnchanged(write, ValidationError, /has no type.*create it first.*Workpiece/u);
      expect(requests).toBeLessThanOrEqual(1); // the type read
      expect((error as ValidationError).details).toMatchObject({
        focus: wp,
        property: cfc.hasPossessedWorkpiece,
        rule: 'typed-individual',
      });
    }
    expect(await states()).toEqual([]);
  });

  onStore('should refuse a typed individual that is not a Workpiece and write nothing', async () => {
    const station = freshIri('station');
    await suite.ogm.create({ iri: station, type: plant.Conveyor, graph: G });
    const { error } = await expectUnchanged(
      () => createPossession(suite.ogm, { workpieceIri: station, possessorIri: plant.robot1, namedGraph: G }),
      ValidationError,
      /none of which is .*Workpiece.*cannot be possessed/u,
    );
    expect((error as ValidationError).details.rule).toBe('domain');
    expect(await states()).toEqual([]);
  });
});
