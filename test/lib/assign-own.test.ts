import { describe, expect, it } from '@jest/globals';
import { assignOwn } from '../../src/lib/assign-own.js';

describe('assignOwn', () => {
  it('should copy a "__proto__" key of parsed JSON as a key, leaving the prototype alone', () => {
    const body = JSON.parse('{"__proto__": {"admin": true}, "speed": 2}') as Record<string, unknown>;
    const merged: Record<string, unknown> = assignOwn({}, { side: 'left' }, body);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(merged.admin).toBeUndefined();
    expect(Object.keys(merged)).toEqual(['side', '__proto__', 'speed']);
    expect(JSON.stringify(merged)).toBe('{"side":"left","__proto__":{"admin":true},"speed":2}');
    // What a spread of the same sources gives.
    expect(merged).toEqual({ ...{ side: 'left' }, ...body });
  });

  it('should let later sources win and skip missing ones, as Object.assign does', () => {
    const fromQuery = Object.create(null) as Record<string, unknown>;
    Object.defineProperty(fromQuery, '__proto__', { value: 'q', enumerable: true, writable: true, configurable: true });
    fromQuery.speed = '1';
    const merged: Record<string, unknown> = assignOwn({}, fromQuery, undefined, null, { speed: 3 });
    expect(Object.getOwnPropertyDescriptor(merged, '__proto__')?.value).toBe('q');
    expect(merged.speed).toBe(3);
    const plain = { a: 1 };
    expect(assignOwn({ a: 0, b: 2 }, plain)).toEqual(Object.assign({ a: 0, b: 2 }, plain));
  });
});
