import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mintServiceIri } from '../../src/iri/index.js';
import {
  APP_TITLE,
  APP_WELCOME,
  ConnectorRegistry,
  Mode,
  RuntimeError,
  SemanticMiddleware,
  SyncDirection,
  ValueError,
  type SemanticMiddlewareOptions,
} from '../../src/middleware/index.js';
import { OGM } from '../../src/ogm/index.js';
import { openEmbeddedStore } from '../../src/store/embedded-store.js';
import type { TripleStore } from '../../src/store/triple-store.js';
import { plant } from '../../src/vocab/index.js';
import { DOOR_STATE, OPEN, silent } from './support/harness.js';

/** Constructor validation and the registration API need no data: one empty embedded store. */
describe('SemanticMiddleware options and registration API', () => {
  let store: TripleStore;
  let ogm: OGM;
  beforeAll(async () => {
    store = await openEmbeddedStore({});
    ogm = new OGM({ store });
  });
  afterAll(async () => store.close());

  const make = (options: SemanticMiddlewareOptions) => new SemanticMiddleware({ logger: silent, ...options });
  const door = (extra: Partial<SemanticMiddlewareOptions> = {}) =>
    make({ resourceIri: plant.door1, serviceClass: plant.ControllerService, ogm, ...extra });
  const error = (fn: () => unknown): Error => {
    try {
      fn();
    } catch (e) {
      return e as Error;
    }
    throw new Error('expected a throw');
  };

  it('should export the spec constants', () => {
    expect(APP_TITLE).toBe('semantic-middleware');
    expect(SemanticMiddleware.APP_TITLE).toBe(APP_TITLE);
    expect(APP_WELCOME).toBe('Welcome to semantic middleware!');
    expect(Mode).toEqual({ RESOURCE: 'resource', SERVER: 'server', WATCHDOG: 'watchdog' });
  });

  it('should name the three valid modes for an unknown one', () => {
    const e = error(() => make({ mode: 'sidecar', ogm }));
    expect(e).toBeInstanceOf(ValueError);
    expect(e.message).toMatch(/"sidecar".*'resource', 'server', 'watchdog'/);
  });

  it('should name each missing required option of resource mode', () => {
    const all = error(() => make({}));
    expect(all).toBeInstanceOf(ValueError);
    expect(all.message).toContain('resourceIri, serviceClass, ogm');
    const one = error(() => make({ resourceIri: plant.door1, ogm }));
    expect(one.message).toMatch(/serviceClass \(missing\)/);
    expect(one.message).not.toContain('resourceIri');
  });

  it('should refuse server mode on construction and need only the OGM in watchdog mode', () => {
    expect(() => make({ mode: Mode.SERVER, ogm })).toThrow(RuntimeError);
    expect(() => make({ mode: 'server', resourceIri: plant.door1, serviceClass: plant.ControllerService, ogm })).toThrow(/reserved/);
    expect(make({ mode: 'watchdog', ogm }).mode).toBe('watchdog');
    expect(make({ mode: Mode.WATCHDOG, ogm }).serviceIri).toBeUndefined();
    expect(error(() => make({ mode: 'watchdog' })).message).toMatch(/watchdog mode needs the option ogm/);
    expect(() => make({ mode: 'watchdog', ogm: {} as OGM })).toThrow(/OGM instance/);
  });

  it('should apply the defaults of the spec table', () => {
    const mw = door();
    expect(mw.mode).toBe('resource');
    expect(mw.address).toBe('http://127.0.0.1:8000');
    expect(mw.serviceIri).toBe(mintServiceIri(plant.door1, 'http://127.0.0.1:8000'));
    expect(door({ port: 0 }).address).toBeUndefined();
    expect(door({ address: 'HTTP://Door1.Plant:9000/' }).address).toBe('http://door1.plant:9000');
    expect(door({ host: '::1', port: 8100 }).address).toBe('http://[::1]:8100');
    expect(() =>
      door({
        heartbeatInterval: null,
        connectorSyncDirection: SyncDirection.TO_PERSISTENCE,
        connectorRegistry: new ConnectorRegistry(),
        autoregisterConnectors: false,
      }),
    ).not.toThrow();
  });

  it.each([
    [{ port: -1 }, /port must be an integer from 0 to 65535.*"-1"/],
    [{ port: 1.5 }, /port/],
    [{ host: 'a b' }, /host/],
    [{ address: 'ftp://x' }, /address "ftp:\/\/x" is not an absolute http\(s\) URL/],
    [{ resourceIri: 'door 1' }, /resourceIri "door 1" is not a valid absolute IRI/],
    [{ namedGraph: 'nope' }, /namedGraph/],
    [{ heartbeatInterval: 0 }, /heartbeatInterval must be a number of seconds > 0/],
    [{ stalenessThreshold: -5 }, /stalenessThreshold/],
    [{ sweepInterval: Number.NaN }, /sweepInterval/],
    [{ classScope: { follow: [['not an iri']] } }, /classScope.follow property/],
    [{ classScope: { follow: 'x' } as never }, /classScope must be an object/],
    [{ connectorSyncDirection: 'sideways' }, /'bidirectional', 'to_persistence', 'from_persistence'/],
    [{ connectorSyncDirection: 'pull' }, /connectorSyncDirection "pull" is not one of/],
    [{ connectorRegistry: 'registry' as never }, /connectorRegistry must be a ConnectorRegistry or null, got string/],
    [{ connectorRegistry: {} as never }, /connectorRegistry must be a ConnectorRegistry or null, got another object/],
    [{ ensureTransport: 'tcp' as never }, /ensureTransport must be a function/],
    [{ connectorMaxAge: 0 }, /connectorMaxAge must be a number of seconds > 0, got "0"/],
    [{ activityFeed: 'yes' as never }, /activityFeed must be true or false/],
    [{ activityCapacity: 0 }, /activityCapacity must be an integer >= 1/],
    [{ shutdownGraceMs: -1 }, /shutdownGraceMs/],
    [{ discoveryCacheMs: -1 }, /discoveryCacheMs must be a number of milliseconds >= 0, got "-1"/],
    [{ discoveryCacheMs: '1000' as never }, /discoveryCacheMs must be a number of milliseconds >= 0/],
    [{ deviceHealth: 'probe' as never }, /deviceHealth must be a function/],
    [{ deviceHealthIntervalMs: 0 }, /deviceHealthIntervalMs must be a whole number of milliseconds from 1 to 2147483647, got "0"/],
    [{ deviceHealthIntervalMs: 1.5 }, /deviceHealthIntervalMs/],
    [{ deviceHealthIntervalMs: 2 ** 31 }, /deviceHealthIntervalMs/],
    [{ deviceHealthIntervalMs: '100' as never }, /deviceHealthIntervalMs/],
    [{ logger: { warn: () => undefined } as never }, /logger must be a pino logger/],
  ] as [Partial<SemanticMiddlewareOptions>, RegExp][])('should refuse %j with a clear ValueError', (bad, message) => {
    const e = error(() => door(bad));
    expect(e).toBeInstanceOf(ValueError);
    expect(e.message).toMatch(message);
  });

  it('should validate workflow and state registrations synchronously', () => {
    const mw = door();
    mw.workflow({ capabilityClass: OPEN.capabilityClass, workflowClass: OPEN.workflowClass }, function open() {
      return 'opened';
    });
    expect(() => mw.workflow({ capabilityClass: OPEN.capabilityClass, workflowClass: OPEN.workflowClass }, () => 1)).toThrow(
      /needs a name/,
    );
    expect(() => mw.workflow(OPEN, () => 1)).toThrow(/"open" is already registered/);
    expect(() => mw.state({ ...DOOR_STATE, name: 'open' }, () => 1)).toThrow(/already registered/);
    expect(() => mw.workflow({ ...OPEN, name: 'event_trigger' }, () => 1)).toThrow(/reserved for the event trigger/);
    expect(() => mw.workflow({ ...OPEN, name: 'has space' }, () => 1)).toThrow(/not a valid name/);
    expect(() => mw.workflow({ workflowClass: OPEN.workflowClass, name: 'x' } as never, () => 1)).toThrow(
      /needs the option capabilityClass/,
    );
    expect(() => mw.workflow({ capabilityClass: OPEN.capabilityClass, name: 'x' } as never, () => 1)).toThrow(
      /needs the option workflowClass/,
    );
    expect(() =>
      mw.state({ capabilityClass: 'door state', statePropertyClass: DOOR_STATE.statePropertyClass, name: 's' }, () => 1),
    ).toThrow(ValueError);
    expect(() =>
      mw.state({ ...DOOR_STATE, name: undefined }, function doorState() {
        return 'closed';
      }),
    ).not.toThrow();
    expect(() => make({ mode: 'watchdog', ogm }).state(DOOR_STATE, () => 1)).toThrow(RuntimeError);
    expect(() => make({ mode: 'watchdog', ogm }).registerCallback(() => 1)).toThrow(RuntimeError);
    mw.registerCallback(() => 1);
    expect(() => mw.registerCallback(() => 2)).toThrow(/already registered/);
  });

  it('should build the app once and serve the welcome route', async () => {
    const mw = make({ mode: 'watchdog', ogm, port: 0, sweepInterval: 3600 });
    expect(mw.app).toBe(mw.app);
    let transport: [string, number] | undefined;
    const withTransport = make({
      mode: 'watchdog',
      ogm,
      port: 0,
      sweepInterval: 3600,
      ensureTransport: (h, p) => void (transport = [h, p]),
    });
    await withTransport.start();
    try {
      expect(transport).toEqual(['127.0.0.1', 0]);
      const res = await fetch(`${withTransport.address}/`);
      expect(await res.json()).toBe(APP_WELCOME);
      expect((await fetch(`${withTransport.address}/favicon.ico`)).status).toBe(204);
      expect(withTransport.server?.listening).toBe(true);
    } finally {
      await withTransport.stop();
    }
    expect(withTransport.server).toBeUndefined();
  });
});
