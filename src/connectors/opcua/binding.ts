/**
 * The OPC UA connector binding: parameters whose property descends from
 * `sm:isInterfaceAccessibleOPCUAParameter`, variables (`sm:hasOPCUANodeId`) of the server at
 * `sm:hasOPCUAEndpoint`, read by subscription and written when readwrite. One session per
 * server; the session module, and node-opcua with it, is loaded when the first one opens.
 */
import { sm } from '../../vocab/terms.js';
import type { ConnectorBinding } from '../binding.js';
import { opcuaMetadata } from './metadata.js';

/** Options of {@link opcuaBinding}. */
export interface OpcuaBindingOptions {
  /**
   * Directory of the client's certificate store: its own self-signed certificate (`own/`, made
   * on the first connection), the server certificates it trusts (`trusted/certs/`) and those it
   * refused (`rejected/`). Default: node-opcua's own (`~/.config/node-opcua-default-nodejs`); a
   * sidecar uses `<state dir>/opcua-pki`.
   */
  pkiDir?: string;
}

/**
 * The OPC UA binding, registered by `defaultConnectorRegistry()`.
 * @example registry.register(opcuaBinding({ pkiDir: '/var/lib/semantic-sidecar/opcua-pki' })) // in a registry without the default one
 */
export function opcuaBinding(options: OpcuaBindingOptions = {}): ConnectorBinding {
  return {
    interfaceProperty: sm.isInterfaceAccessibleOPCUAParameter,
    metadataProperties: [
      sm.hasOPCUAEndpoint,
      sm.hasOPCUANodeId,
      sm.hasOPCUASamplingIntervalMs,
      sm.hasOPCUASecurityMode,
      sm.hasOPCUASecurityPolicy,
      sm.hasOPCUAUserName,
    ],
    transport: (parameter) => opcuaMetadata(parameter).endpoint.transport,
    // Every variable is written with the Write service; the server refuses those it does not take.
    canWrite: () => true,
    open: async (transport, parameters, context) => {
      const { OpcuaSession } = await import('./session.js');
      const served = parameters.map((declaration) => ({ declaration, metadata: opcuaMetadata(declaration) }));
      return OpcuaSession.open(transport, served, context, options.pkiDir);
    },
  };
}
