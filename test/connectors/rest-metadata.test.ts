import { describe, expect, it } from '@jest/globals';
import { restBinding } from '../../src/connectors/rest/binding.js';
import { restMetadata } from '../../src/connectors/rest/metadata.js';
import { receptionOf } from '../../src/connectors/rest/answers.js';
import type { ParameterDeclaration } from '../../src/middleware/index.js';
import { sm } from '../../src/vocab/index.js';

const PEER = 'https://example.org/plant#robot1';

const declaration = (metadata: Record<string, string>): ParameterDeclaration => ({
  name: 'speed',
  holder: 'https://example.org/plant#door1',
  property: 'https://example.org/plant#hasSpeed',
  interfaceProperty: sm.isInterfaceAccessibleRESTParameter,
  datatype: 'any',
  accessMode: 'readwrite',
  metadata: new Map(Object.entries(metadata)),
});

describe('restMetadata', () => {
  it('should route a peer parameter to /parameters and a peer state property to /state, the name percent-encoded', () => {
    expect(restMetadata(declaration({ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerParameter]: 'belt speed/1' }))).toEqual({
      peer: PEER,
      kind: 'parameter',
      path: '/parameters/belt%20speed%2F1',
    });
    expect(restMetadata(declaration({ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerState]: 'gripper' }))).toEqual({
      peer: PEER,
      kind: 'state',
      path: '/state/gripper',
    });
  });

  it.each([
    [{ [sm.hasRESTPeerParameter]: 'x' }, 'sm:hasRESTPeer is missing'],
    [{ [sm.hasRESTPeer]: 'robot one', [sm.hasRESTPeerParameter]: 'x' }, 'sm:hasRESTPeer is not an IRI'],
    [{ [sm.hasRESTPeer]: PEER }, 'exactly one is needed'],
    [{ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerParameter]: 'x', [sm.hasRESTPeerState]: 'y' }, 'exactly one is needed'],
    [{ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerState]: '.' }, 'sm:hasRESTPeerState is not a name'],
    [{ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerParameter]: 'a\u0085b' }, 'sm:hasRESTPeerParameter is not a name'],
  ])('should refuse %j naming the parameter and the property, never the value', (metadata, rule) => {
    let message = '';
    try {
      restMetadata(declaration(metadata));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^parameter "speed": sm:/u);
    expect(message).toContain(rule);
    for (const value of Object.values(metadata)) expect(message).not.toContain(value.length > 1 ? value : `"${value}"`);
  });
});

describe('receptionOf', () => {
  const parameter = { peer: PEER, kind: 'parameter', path: '/parameters/x' } as const;
  it("should take a peer view's value with the peer's age, and nothing before its first value", () => {
    expect(receptionOf(parameter, { value: 3, ageMs: 250, stale: false })).toEqual({ candidate: 3, ageMs: 250 });
    expect(receptionOf(parameter, { value: 3, ageMs: -5 })).toEqual({ candidate: 3, ageMs: 0 });
    expect(receptionOf(parameter, { value: null, ageMs: null })).toBeUndefined();
    expect(receptionOf(parameter, { value: 3, stale: true })).toEqual({ reason: 'the peer serves its value as stale' });
    expect(receptionOf(parameter, 3)).toEqual({ reason: "the peer's answer is not a parameter view" });
  });

  it('should take a state answer as the raw value, read live', () => {
    expect(receptionOf({ ...parameter, kind: 'state' }, { any: 'json' })).toEqual({ candidate: { any: 'json' } });
  });
});

describe('restBinding', () => {
  it('should refuse a timing that is not a positive number of milliseconds', () => {
    expect(() => restBinding({ pollIntervalMs: 0 })).toThrow('restBinding pollIntervalMs must be a positive number of milliseconds, got 0');
    expect(() => restBinding({ resolveMs: Number.NaN })).toThrow('resolveMs');
  });

  it('should group by peer resource and announce no transport', () => {
    const binding = restBinding();
    expect(binding.announcesTransport).toBe(false);
    expect(binding.transport(declaration({ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerState]: 'g' }))).toEqual({ host: PEER, port: 0 });
    expect(binding.canWrite(declaration({ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerState]: 'g' }))).toBe(false);
    expect(binding.canWrite(declaration({ [sm.hasRESTPeer]: PEER, [sm.hasRESTPeerParameter]: 'g' }))).toBe(true);
  });
});
