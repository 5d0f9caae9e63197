import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { RuntimeError, StoreError } from '../../../src/errors.js';
import { createApp } from '../../../src/middleware/surface/app.js';
import { fakeSurface, jsonOf, serve, type FakeSurface, type Served } from './support/serve.js';

describe('GET /state/{name}', () => {
  let served: Served;
  let surface: FakeSurface;
  beforeEach(async () => {
    surface = fakeSurface();
    served = await serve(createApp(surface));
  });
  afterEach(() => served.close());
  const get = async (name: string): Promise<{ status: number; body: unknown }> =>
    jsonOf(await fetch(`${served.url}/state/${encodeURIComponent(name)}`));

  it('should serve the raw JSON value of the getter, no envelope', async () => {
    let door = 'closed';
    surface.states.set('door', () => door);
    surface.states.set('pose', () => Promise.resolve({ x: 1.5, y: -2 }));
    surface.states.set('unknown yet', () => undefined);
    expect(await get('door')).toEqual({ status: 200, body: 'closed' });
    door = 'open';
    expect(await get('door')).toEqual({ status: 200, body: 'open' });
    expect(await get('pose')).toEqual({ status: 200, body: { x: 1.5, y: -2 } });
    expect(await get('unknown yet')).toEqual({ status: 200, body: null });
  });

  it('should answer 404 for an unknown state property', async () => {
    expect(await get('temperature')).toEqual({ status: 404, body: { detail: 'no state property named "temperature" is registered here' } });
  });

  it('should map getter errors like workflow errors', async () => {
    surface.states.set('conflict', () => {
      throw new RuntimeError('device is stopping');
    });
    surface.states.set('store', () => Promise.reject(new StoreError('store down')));
    surface.states.set('plain', () => {
      throw new Error('sensor offline');
    });
    expect(await get('conflict')).toEqual({ status: 409, body: { detail: 'device is stopping' } });
    expect(await get('store')).toEqual({ status: 503, body: { detail: 'store down' } });
    expect(await get('plain')).toEqual({ status: 500, body: { detail: 'Internal Server Error' } });
  });
});
