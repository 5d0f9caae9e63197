import { ValueError } from '../errors.js';
import { assertIri, preview } from '../iri/validate.js';
import type { ConnectorBinding } from './binding.js';
import { mqttBinding } from './mqtt/binding.js';
import { opcuaBinding, type OpcuaBindingOptions } from './opcua/binding.js';
import { restBinding } from './rest/binding.js';

/**
 * The connector registry (the spec's `SemanticConnectorRegistry`): interface property →
 * binding. A parameter is served by the binding registered under the nearest interface property
 * its domain property descends from.
 * @example
 * const registry = defaultConnectorRegistry();
 * registry.register(myModbusBinding); // interfaceProperty: 'https://example.org/if#isModbusParameter'
 * new SemanticMiddleware({ ..., connectorRegistry: registry });
 */
export class ConnectorRegistry {
  private readonly byProperty = new Map<string, ConnectorBinding>();

  /**
   * Registers a binding under its interface property.
   * @returns a function that removes the registration again.
   * @throws ValueError when the property is not an IRI or has a binding already.
   */
  register(binding: ConnectorBinding): () => void {
    const iri = assertIri(binding.interfaceProperty);
    if (this.byProperty.has(iri)) throw new ValueError(`interface property ${preview(iri)} has a connector binding already`);
    for (const meta of binding.metadataProperties) assertIri(meta);
    this.byProperty.set(iri, binding);
    return () => {
      if (this.byProperty.get(iri) === binding) this.byProperty.delete(iri);
    };
  }

  /** The binding registered under `interfaceProperty`, if any. */
  get(interfaceProperty: string): ConnectorBinding | undefined {
    return this.byProperty.get(interfaceProperty);
  }

  /** The interface properties with a binding. */
  interfaceProperties(): string[] {
    return [...this.byProperty.keys()];
  }

  /** Every metadata property any binding reads. */
  metadataProperties(): string[] {
    return [...new Set([...this.byProperty.values()].flatMap((b) => b.metadataProperties))];
  }
}

/** Options of {@link defaultConnectorRegistry}. */
export interface DefaultConnectorRegistryOptions {
  /** Options of the OPC UA binding (its certificate store). */
  opcua?: OpcuaBindingOptions;
}

/** A registry holding the bindings that ship: MQTT, OPC UA, and REST to peer middlewares. */
export function defaultConnectorRegistry(options: DefaultConnectorRegistryOptions = {}): ConnectorRegistry {
  const registry = new ConnectorRegistry();
  registry.register(mqttBinding);
  registry.register(opcuaBinding(options.opcua));
  registry.register(restBinding());
  return registry;
}
