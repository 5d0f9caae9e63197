import { afterEach, describe, expect, it } from '@jest/globals';
import {
  openDevice,
  parseDeviceTarget,
  registerDeviceBinding,
  stateProxy,
  workflowProxy,
  type DeviceBinding,
  type DeviceClient,
  type DeviceClientSettings,
  type DeviceForm,
} from '../../src/device/index.js';
import { ValueError } from '../../src/errors.js';

/** A binding for the `fake:` scheme that records what it was asked, as a plug-in transport would be. */
function fakeBinding(): DeviceBinding & { opened: Array<{ target: string; settings: DeviceClientSettings }>; forms: DeviceForm[] } {
  const opened: Array<{ target: string; settings: DeviceClientSettings }> = [];
  const forms: DeviceForm[] = [];
  return {
    schemes: ['fake', 'fakes'],
    opened,
    forms,
    describe(target) {
      if (target.endsWith(':')) throw new ValueError(`device target ${JSON.stringify(target)} names no fake device`);
      return `fake device ${target.slice(target.indexOf(':') + 1)}`;
    },
    open(target, settings): DeviceClient {
      opened.push({ target, settings });
      return {
        description: this.describe(target),
        invoker: (form) => (forms.push(form), (args) => Promise.resolve({ invoked: form.path, args })),
        reader: (form) => (forms.push(form), () => Promise.resolve(`state at ${form.path}`)),
        health: () => Promise.resolve({ reachable: true, ms: 0 }),
        close: () => Promise.resolve(),
      };
    },
  };
}

let unregister: (() => void) | undefined;
afterEach(() => {
  unregister?.();
  unregister = undefined;
});

describe('the device binding registry', () => {
  it('should refuse an unknown scheme with a ValueError naming the value and the known schemes', () => {
    const message =
      'device target "tcp://127.0.0.1:9000" has scheme "tcp:", which no device binding serves (known: "unix:", "http:", "https:")';
    expect(() => parseDeviceTarget('tcp://127.0.0.1:9000')).toThrow(ValueError);
    expect(() => parseDeviceTarget('tcp://127.0.0.1:9000')).toThrow(message);
    expect(() => openDevice('tcp://127.0.0.1:9000')).toThrow(message);
    expect(() => parseDeviceTarget('mqtt://broker:1883/door1')).toThrow('has scheme "mqtt:", which no device binding serves');
  });

  it('should refuse a target without a scheme, or that is not a string', () => {
    expect(() => parseDeviceTarget('/run/door.sock')).toThrow(
      'device target "/run/door.sock" names no scheme (expected e.g. "unix:/run/door.sock" or "http://127.0.0.1:9000"',
    );
    expect(() => parseDeviceTarget('')).toThrow(ValueError);
    expect(() => parseDeviceTarget(42 as unknown as string)).toThrow('device target 42 is not a string');
  });

  it('should open a target through the binding registered for its scheme, with checked settings', async () => {
    const binding = fakeBinding();
    unregister = registerDeviceBinding(binding);
    expect(parseDeviceTarget('fake:door1')).toBe('fake:door1');
    const device = openDevice('FAKES:door1', { maxReplyBytes: 2048 });
    expect(device.description).toBe('fake device door1');
    expect(binding.opened).toEqual([{ target: 'FAKES:door1', settings: expect.objectContaining({ maxReplyBytes: 2048 }) }]);
    expect(binding.opened[0]!.settings.logger.bindings()).toEqual({ device: 'fake device door1' });
    expect(() => openDevice('fake:')).toThrow('device target "fake:" names no fake device');
    expect(binding.opened).toHaveLength(1);
    await device.close();
  });

  it('should hand the binding forms with the name and timeout checked, and the default timeout filled in', async () => {
    const binding = fakeBinding();
    unregister = registerDeviceBinding(binding);
    const device = openDevice('fake:door1');
    const decl = { name: 'open', capabilityClass: 'urn:c', workflowClass: 'urn:w', path: 'topic/open' };
    await expect(workflowProxy(device, decl)({ speed: 1 })).resolves.toEqual({ invoked: 'topic/open', args: { speed: 1 } });
    await expect(
      stateProxy(device, { name: 'door', capabilityClass: 'urn:c', statePropertyClass: 'urn:s', path: 'topic/door', timeoutMs: 50 })(),
    ).resolves.toBe('state at topic/door');
    expect(binding.forms).toEqual([
      { label: 'workflow "open"', path: 'topic/open', timeoutMs: 10_000 },
      { label: 'state property "door"', path: 'topic/door', timeoutMs: 50 },
    ]);
  });

  it('should stop using a binding once it is unregistered', () => {
    unregister = registerDeviceBinding(fakeBinding());
    unregister();
    expect(() => openDevice('fake:door1')).toThrow('has scheme "fake:", which no device binding serves');
  });

  it('should refuse a scheme that is taken or not a lower-case URI scheme', async () => {
    expect(() => registerDeviceBinding({ ...fakeBinding(), schemes: ['http'] })).toThrow(
      'device binding scheme "http:" is registered already',
    );
    expect(() => registerDeviceBinding({ ...fakeBinding(), schemes: ['MQTT'] })).toThrow(
      'device binding scheme "MQTT" is not a lower-case URI scheme',
    );
    expect(() => registerDeviceBinding({ ...fakeBinding(), schemes: ['ok', 'opc tcp'] })).toThrow(ValueError);
    expect(() => openDevice('ok:x')).toThrow('no device binding serves');
    await openDevice('http://127.0.0.1:9').close();
  });

  it('should refuse a bad reply limit', () => {
    expect(() => openDevice('http://127.0.0.1:9000', { maxReplyBytes: -1 })).toThrow(
      'maxReplyBytes -1 is not a positive whole number of bytes',
    );
  });
});
