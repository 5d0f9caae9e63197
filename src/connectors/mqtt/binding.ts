/**
 * The MQTT connector binding: parameters whose property descends from
 * `inf:isInterfaceAccessibleMQTTParameter`, read from `inf:hasMQTTTopic`, set through
 * `inf:hasMQTTSetTopic`, on the broker at `inf:hasMQTTBrokerIP`:`inf:hasMQTTBrokerPort`.
 */
import { inf } from '../../vocab/terms.js';
import type { ConnectorBinding } from '../binding.js';
import { mqttMetadata } from './metadata.js';
import { MqttSession } from './session.js';

/** The MQTT binding, registered by `defaultConnectorRegistry()`. */
export const mqttBinding: ConnectorBinding = {
  interfaceProperty: inf.isInterfaceAccessibleMQTTParameter,
  metadataProperties: [inf.hasMQTTTopic, inf.hasMQTTSetTopic, inf.hasMQTTBrokerIP, inf.hasMQTTBrokerPort, inf.hasMQTTValuePath],
  transport: (parameter) => mqttMetadata(parameter).transport,
  canWrite: (parameter) => mqttMetadata(parameter).setTopic !== undefined,
  open: (transport, parameters, context) =>
    MqttSession.open(
      transport,
      parameters.map((declaration) => ({ declaration, metadata: mqttMetadata(declaration) })),
      context,
    ),
};
