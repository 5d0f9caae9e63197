import { describe, expect, it } from '@jest/globals';
import type { ParameterDeclaration } from '../../src/connectors/binding.js';
import { mqttMetadata } from '../../src/connectors/mqtt/metadata.js';
import { readPayload, writePayload } from '../../src/connectors/mqtt/payload.js';
import { ValueError } from '../../src/errors.js';
import { inf, XSD, xsd } from '../../src/vocab/index.js';

const FLOAT = XSD('float');
const declaration = (metadata: Record<string, string>): ParameterDeclaration => ({
  name: 'belt.speed',
  holder: 'urn:x:belt',
  property: 'urn:x:hasSpeed',
  interfaceProperty: inf.isInterfaceAccessibleMQTTParameter,
  datatype: FLOAT,
  accessMode: 'readwrite',
  metadata: new Map(Object.entries(metadata)),
});
const base = { [inf.hasMQTTBrokerIP]: '127.0.0.1', [inf.hasMQTTTopic]: 'tu/speed' };

describe('MQTT payloads', () => {
  it('should read raw scalars, string text as is, and values at a dotted path', () => {
    expect(readPayload(Buffer.from('21.5'), FLOAT, [], 100)).toEqual({ candidate: 21.5 });
    expect(readPayload(Buffer.from('"quoted"'), xsd.string, [], 100)).toEqual({ candidate: '"quoted"' });
    expect(readPayload(Buffer.from('{"a":{"b":true}}'), xsd.boolean, ['a', 'b'], 100)).toEqual({ candidate: true });
  });

  it('should give a reason for what it cannot read', () => {
    expect(readPayload(Buffer.from('x'.repeat(101)), FLOAT, [], 100)).toEqual({ reason: 'payload of 101 bytes exceeds the limit of 100' });
    expect(readPayload(Buffer.from('fast'), FLOAT, [], 100)).toEqual({ reason: 'payload is not a JSON scalar' });
    expect(readPayload(Buffer.from('{"a":'), FLOAT, ['a'], 100)).toEqual({ reason: 'payload is not JSON' });
    const missing = { reason: "payload has no value at the parameter's value path" };
    expect(readPayload(Buffer.from('{"a":[1]}'), FLOAT, ['a', '0'], 100)).toEqual(missing);
    expect(readPayload(Buffer.from('{"b":1}'), FLOAT, ['a'], 100)).toEqual(missing);
    expect(readPayload(Buffer.from('{}'), FLOAT, ['toString'], 100)).toEqual(missing);
  });

  it('should write raw scalars and envelopes', () => {
    expect(writePayload(2.5, [])).toBe('2.5');
    expect(writePayload('on', [])).toBe('on');
    expect(writePayload(true, ['data', 'value'])).toBe('{"data":{"value":true}}');
  });
});

describe('MQTT metadata', () => {
  it('should read the transport, topics and value path, with 1883 as the default port', () => {
    const meta = mqttMetadata(declaration({ ...base, [inf.hasMQTTSetTopic]: 'tu/speed_set', [inf.hasMQTTValuePath]: 'data.value' }));
    expect(meta).toEqual({
      transport: { host: '127.0.0.1', port: 1883 },
      topic: 'tu/speed',
      setTopic: 'tu/speed_set',
      valuePath: ['data', 'value'],
    });
    expect(
      mqttMetadata(declaration({ ...base, [inf.hasMQTTBrokerIP]: 'Broker.Plant', [inf.hasMQTTBrokerPort]: '8883' })).transport,
    ).toEqual({
      host: 'broker.plant',
      port: 8883,
    });
  });

  it.each([
    [{ [inf.hasMQTTBrokerIP]: '' }, 'inf:hasMQTTBrokerIP is missing'],
    [{ [inf.hasMQTTBrokerIP]: 'evil.host/path?x' }, 'inf:hasMQTTBrokerIP is not a host name or IP address'],
    [{ [inf.hasMQTTBrokerPort]: '0' }, 'inf:hasMQTTBrokerPort is not a port'],
    [{ [inf.hasMQTTBrokerPort]: '1883 ' + 'x' }, 'inf:hasMQTTBrokerPort is not a port'],
    [{ [inf.hasMQTTTopic]: '#' }, 'inf:hasMQTTTopic is not a valid MQTT topic name'],
    [{ [inf.hasMQTTTopic]: 'a/+/b' }, 'inf:hasMQTTTopic is not a valid MQTT topic name'],
    [{ [inf.hasMQTTTopic]: 'a\u0000b' }, 'inf:hasMQTTTopic is not a valid MQTT topic name'],
    [{ [inf.hasMQTTTopic]: 'a\u0085b' }, 'inf:hasMQTTTopic is not a valid MQTT topic name'],
    [{ [inf.hasMQTTTopic]: 'x'.repeat(65_536) }, 'inf:hasMQTTTopic is not a valid MQTT topic name'],
    [{ [inf.hasMQTTSetTopic]: '' }, 'inf:hasMQTTSetTopic is not a valid MQTT topic name'],
    [{ [inf.hasMQTTValuePath]: 'a..b' }, 'inf:hasMQTTValuePath is not a dotted path'],
    [{ [inf.hasMQTTValuePath]: '__proto__.polluted' }, 'inf:hasMQTTValuePath is not a dotted path'],
  ])('should refuse %j naming the parameter and the property, not the value', (bad, message) => {
    let error: unknown;
    try {
      mqttMetadata(declaration({ ...base, ...bad }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValueError);
    expect((error as Error).message).toContain(`parameter "belt.speed": ${message}`);
    for (const value of Object.values(bad)) if (value.length > 2) expect((error as Error).message).not.toContain(value);
  });
});
