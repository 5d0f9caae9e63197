import { copyFileSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { OWL, RDFS, sm, XSD } from '../../src/vocab/index.js';
import { inf } from '../../src/vocab/terms.js';
import { ProcessGroup, ROOT, type Proc } from '../support/sidecar-process.js';
import { EX, lit } from './support.js';

/** The simulated OPC UA PLC of the example, started by the tests. */
export const PLC = join(ROOT, 'examples', 'opcua-plc', 'plc.mjs');

/** The PLC's NodeIds (as `examples/opcua-plc/plc.mjs` serves them). */
export const NODES = {
  object: 'ns=1;s=TransferUnit',
  speed: 'ns=1;s=TransferUnit.Conveyor.Speed',
  occupied: 'ns=1;s=TransferUnit.LightBarrier.Occupied',
  parts: 'ns=1;s=TransferUnit.Parts',
  label: 'ns=1;s=TransferUnit.Label',
  start: 'ns=1;s=TransferUnit.Start',
  stop: 'ns=1;s=TransferUnit.Stop',
} as const;

/** A running PLC: its process, endpoint URL, certificate file and port. */
export interface RunningPlc {
  proc: Proc;
  endpoint: string;
  certificate: string;
  port: number;
}

/** The machine is loaded and the PLC's first start makes its certificate: generous. */
export const PLC_START_MS = 60_000;

/**
 * Starts the simulated PLC on loopback (port 0 unless `--port` is in `args`), its certificate
 * store in `pkiDir`; resolves once it printed its endpoint.
 */
export async function startPlc(group: ProcessGroup, pkiDir: string, args: readonly string[] = []): Promise<RunningPlc> {
  const proc = group.spawn('opcua-plc', PLC, ['--port', '0', '--pki-dir', pkiDir, '--ramp', '4', ...args]);
  const first = JSON.parse(await proc.firstLine(PLC_START_MS)) as { endpoint: string; certificate: string };
  return { proc, ...first, port: Number(new URL(first.endpoint.replace('opc.tcp:', 'http:')).port) };
}

/** Copies the server's certificate into the client store's `trusted/certs/`, as an operator does. */
export function trustServer(pkiDir: string, certificate: string): void {
  mkdirSync(join(pkiDir, 'trusted', 'certs'), { recursive: true });
  copyFileSync(certificate, join(pkiDir, 'trusted', 'certs', 'plc.pem'));
}

/** Moves every certificate of `rejected/` to `trusted/certs/`, as the README tells an operator (a certificate in both counts as rejected). */
export function trustRejected(pkiDir: string): void {
  mkdirSync(join(pkiDir, 'trusted', 'certs'), { recursive: true });
  for (const file of rejected(pkiDir)) renameSync(join(pkiDir, 'rejected', file), join(pkiDir, 'trusted', 'certs', file));
}

/** The files in a certificate store's `rejected/` folder. */
export function rejected(pkiDir: string): string[] {
  try {
    return readdirSync(join(pkiDir, 'rejected')).filter((f) => f.endsWith('.pem') || f.endsWith('.der'));
  } catch {
    return [];
  }
}

/** A test parameter node on the PLC. */
export interface OpcuaNode {
  property: string;
  nodeId: string;
  mode?: string;
  endpoint: string;
  samplingMs?: number;
  securityMode?: string;
  securityPolicy?: string;
  userName?: string;
}

const range = (datatype: string): string => `[ <${OWL('onProperty')}> <${inf.hasValue}> ; <${OWL('allValuesFrom')}> <${XSD(datatype)}> ]`;

/** The test domain: OPC UA parameters of every datatype the PLC serves, and two method-bound workflows. */
export const OPCUA_TBOX = `
<${EX}speed> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAParameter}> ; <${RDFS('range')}> ${range('double')} .
<${EX}occupied> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAParameter}> ; <${RDFS('range')}> ${range('boolean')} .
<${EX}parts> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAParameter}> ; <${RDFS('range')}> ${range('int')} .
<${EX}label> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAParameter}> ; <${RDFS('range')}> ${range('string')} .
<${EX}missing> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAParameter}> ; <${RDFS('range')}> ${range('double')} .
<${EX}wrongType> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAParameter}> ; <${RDFS('range')}> ${range('boolean')} .
<${EX}hostile> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAParameter}> .
<${EX}start> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAWorkflow}> .
<${EX}stop> <${RDFS('subPropertyOf')}> <${sm.isInterfaceAccessibleOPCUAWorkflow}> .
`;

function security(n: { securityMode?: string; securityPolicy?: string; userName?: string }): string[] {
  return [
    n.securityMode !== undefined ? `<${sm.hasOPCUASecurityMode}> ${lit(n.securityMode)}` : '',
    n.securityPolicy !== undefined ? `<${sm.hasOPCUASecurityPolicy}> ${lit(n.securityPolicy)}` : '',
    n.userName !== undefined ? `<${sm.hasOPCUAUserName}> ${lit(n.userName)}` : '',
  ];
}

/** Turtle of parameter nodes held by `holder`. */
export function opcuaParameters(holder: string, nodes: readonly OpcuaNode[]): string {
  return nodes
    .map((n) => {
      const facts = [
        n.mode !== undefined ? `<${inf.accessMode}> ${lit(n.mode)}` : '',
        `<${sm.hasOPCUAEndpoint}> ${lit(n.endpoint)}`,
        `<${sm.hasOPCUANodeId}> ${lit(n.nodeId)}`,
        `<${sm.hasOPCUASamplingIntervalMs}> "${n.samplingMs ?? 50}"^^<${XSD('integer')}>`,
        ...security(n),
      ].filter((f) => f !== '');
      return `<${holder}> <${n.property}> [ ${facts.join(' ; ')} ] .`;
    })
    .join('\n');
}

/** Turtle of the start (one Double argument) and stop (none) workflows of the PLC, held by `holder`. */
export function opcuaWorkflows(
  holder: string,
  endpoint: string,
  classes: { workflowClass: string; capabilityClass: string },
  extra: { securityMode?: string; securityPolicy?: string; userName?: string } = {},
): string {
  const node = (property: string, method: string): string =>
    `<${holder}> <${EX}${property}> [ ${[
      `<${sm.workflowClass}> <${classes.workflowClass}>`,
      `<${sm.capabilityClass}> <${classes.capabilityClass}>`,
      `<${sm.hasOPCUAEndpoint}> ${lit(endpoint)}`,
      `<${sm.hasOPCUAObjectNodeId}> ${lit(NODES.object)}`,
      `<${sm.hasOPCUAMethodNodeId}> ${lit(method)}`,
      ...security(extra),
    ]
      .filter((f) => f !== '')
      .join(' ; ')} ] .`;
  return `${node('start', NODES.start)}\n${node('stop', NODES.stop)}`;
}
