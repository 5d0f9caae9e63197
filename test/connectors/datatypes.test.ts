import { describe, expect, it } from '@jest/globals';
import { ANY_SCALAR, datatypeLabel, typeValue } from '../../src/connectors/datatypes.js';
import { SyncDirection, wiringOf } from '../../src/connectors/wiring.js';
import { reconnectDelayMs } from '../../src/connectors/mqtt/broker-connection.js';
import { XSD, xsd } from '../../src/vocab/index.js';

describe('parameter datatypes', () => {
  it.each([
    [xsd.string, 'open', true],
    [xsd.string, 1, false],
    [xsd.boolean, false, true],
    [xsd.boolean, 'true', false],
    [xsd.integer, 42, true],
    [xsd.integer, 4.2, false],
    [xsd.integer, 2 ** 60, false],
    [xsd.nonNegativeInteger, -1, false],
    [XSD('float'), 1.5, true],
    [XSD('double'), Number.POSITIVE_INFINITY, false],
    [XSD('float'), '1.5', false],
    [XSD('float'), null, false],
    [ANY_SCALAR, 'x', true],
    [ANY_SCALAR, { a: 1 }, false],
    [ANY_SCALAR, [1], false],
  ])('should type %s %j: accepted %s', (datatype, candidate, accepted) => {
    const typed = typeValue(datatype, candidate);
    expect(typed.ok).toBe(accepted);
    if (typed.ok) expect(typed.value).toBe(candidate);
  });

  it('should say what was expected and what came', () => {
    expect(typeValue(XSD('float'), 'fast')).toEqual({ ok: false, reason: 'expected xsd:float, got a string' });
    expect(typeValue(xsd.integer, 1.5)).toEqual({ ok: false, reason: 'expected xsd:integer, got a number' });
    expect(typeValue(xsd.boolean, [true])).toEqual({ ok: false, reason: 'expected xsd:boolean, got an array' });
    expect(datatypeLabel('https://example.org/dt#celsius')).toBe('https://example.org/dt#celsius');
  });
});

describe('connector wiring', () => {
  it('should read and write when driving, only read when observing, only write from persistence, nothing when inspecting', () => {
    expect(wiringOf(true, SyncDirection.BIDIRECTIONAL)).toEqual({ reads: true, writes: true });
    expect(wiringOf(true, SyncDirection.TO_PERSISTENCE)).toEqual({ reads: true, writes: false });
    expect(wiringOf(true, SyncDirection.FROM_PERSISTENCE)).toEqual({ reads: false, writes: true });
    for (const direction of Object.values(SyncDirection)) expect(wiringOf(false, direction)).toEqual({ reads: false, writes: false });
  });

  it('should back off exponentially with jitter, capped', () => {
    expect(reconnectDelayMs(0, () => 0.5)).toBe(100);
    expect(reconnectDelayMs(3, () => 0.5)).toBe(800);
    expect(reconnectDelayMs(50, () => 0.5)).toBe(10_000);
    expect(reconnectDelayMs(0, () => 0)).toBe(75);
    expect(reconnectDelayMs(0, () => 1)).toBe(125);
  });
});
