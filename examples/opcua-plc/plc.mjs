#!/usr/bin/env node
// A simulated OPC UA PLC: node-opcua's server with a conveyor whose speed ramps towards the
// setpoint written to it, a light barrier that sees a part pass at every metre of belt travel, a
// part counter, and Start/Stop methods, as a PLC that serves OPC UA itself does. Plain Node and
// the `node-opcua-server` package, no build step. See README.md beside this file.
//
// The first line on stdout is JSON: {"endpoint": "opc.tcp://...", "certificate": "<PEM file>"}.
// Every later line is a pino-style JSON log line. SIGUSR2 closes every client session (a
// simulated session loss); SIGTERM or SIGINT shuts the server down.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, parseArgs } from 'node:util';

const USAGE = `Usage: node plc.mjs [--port N] [--host H] [--hostname NAME] [--pki-dir DIR] [--user NAME --password-file FILE] [--secure-only] [--ramp R]
  --port           TCP port (default $OPCUA_PORT, else 4840; 0 picks a free one)
  --host           address to listen on (default 127.0.0.1)
  --hostname       host name in the endpoint URL and the certificate (default the --host, or this machine's name for 0.0.0.0)
  --pki-dir        the server's certificate store (default ./.data/opcua-plc-pki); client certificates are accepted on first sight
  --user, --password-file   require this user name and the password in the file's first line (default: anonymous)
  --secure-only    offer SignAndEncrypt (Basic256Sha256) only, not None
  --ramp           how fast the speed follows its setpoint, in m/s per second (default 0.5)`;

/** The belt's limits: setpoints and Start speeds outside are refused. */
export const MAX_SPEED = 2;
/** The NodeIds the PLC serves, in namespace 1. */
export const NODES = Object.freeze({
  object: 'ns=1;s=TransferUnit',
  speed: 'ns=1;s=TransferUnit.Conveyor.Speed',
  setpoint: 'ns=1;s=TransferUnit.Conveyor.SpeedSetpoint',
  occupied: 'ns=1;s=TransferUnit.LightBarrier.Occupied',
  parts: 'ns=1;s=TransferUnit.Parts',
  label: 'ns=1;s=TransferUnit.Label',
  start: 'ns=1;s=TransferUnit.Start',
  stop: 'ns=1;s=TransferUnit.Stop',
});
const PART_LENGTH = 0.2;
const TICK_MS = 50;

function fail(message) {
  process.stderr.write(`plc: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function readOptions() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '127.0.0.1' },
        hostname: { type: 'string' },
        'pki-dir': { type: 'string', default: join('.data', 'opcua-plc-pki') },
        user: { type: 'string' },
        'password-file': { type: 'string' },
        'secure-only': { type: 'boolean', default: false },
        ramp: { type: 'string', default: '0.5' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    fail(error.message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const port = Number(values.port ?? (process.env.OPCUA_PORT || 4840));
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail('--port must be a port from 0 to 65535');
  const ramp = Number(values.ramp);
  if (!Number.isFinite(ramp) || ramp <= 0) fail('--ramp must be a number > 0');
  if ((values.user === undefined) !== (values['password-file'] === undefined)) fail('--user and --password-file go together');
  const password = values['password-file'] === undefined ? undefined : readFileSync(values['password-file'], 'utf8').split(/\r?\n/u)[0];
  const name = values.hostname ?? (values.host === '0.0.0.0' ? hostname() : values.host);
  return {
    port,
    host: values.host,
    hostname: name,
    pkiDir: resolve(values['pki-dir']),
    user: values.user,
    password,
    secureOnly: values['secure-only'],
    ramp,
  };
}

/** pino's levels and line shape, on stdout. */
const log = (level) => (fields, msg) =>
  process.stdout.write(
    `${JSON.stringify({ level, time: Date.now(), pid: process.pid, hostname: hostname(), name: 'opcua-plc', ...fields, msg })}\n`,
  );
const info = log(30);
const warn = log(40);

/**
 * Starts the PLC's server.
 * @returns the endpoint URL, the server certificate's PEM file, `dropSessions()` and `stop()`.
 */
export async function startPlc(options) {
  const opcua = await import('node-opcua-client');
  // node-opcua prints plain text on stdout; the PLC's stdout is JSON lines only.
  const toStderr = (context, ...parts) => process.stderr.write(`${format(...parts)}\n`);
  opcua.setWarningLogger(toStderr);
  opcua.setErrorLogger(toStderr);
  opcua.setDebugLogger(() => undefined);
  const { OPCUAServer } = await import('node-opcua-server');
  const { OPCUACertificateManager } = await import('node-opcua-certificate-manager');
  const { nodesets } = await import('node-opcua-nodesets');
  const { DataType, StatusCodes, Variant, MessageSecurityMode, SecurityPolicy } = opcua;
  const serverCertificateManager = new OPCUACertificateManager({
    rootFolder: options.pkiDir,
    automaticallyAcceptUnknownCertificate: true,
    disableFileWatchers: true,
  });
  await serverCertificateManager.initialize();
  const secure = { securityModes: [MessageSecurityMode.SignAndEncrypt], securityPolicies: [SecurityPolicy.Basic256Sha256] };
  const open = {
    securityModes: [MessageSecurityMode.None, MessageSecurityMode.SignAndEncrypt],
    securityPolicies: [SecurityPolicy.None, SecurityPolicy.Basic256Sha256],
  };
  const server = new OPCUAServer({
    port: options.port,
    host: options.host,
    hostname: options.hostname,
    resourcePath: '/UA/PLC',
    nodeset_filename: [nodesets.standard],
    serverCertificateManager,
    buildInfo: { productName: 'semantic-middleware simulated OPC UA PLC' },
    ...(options.secureOnly ? secure : open),
    allowAnonymous: options.user === undefined,
    ...(options.user !== undefined && {
      userManager: { isValidUser: (user, password) => user === options.user && password === options.password },
    }),
  });
  await server.initialize();
  const unit = { speed: 0, setpoint: 0, travel: 0, parts: 0, running: true, label: 'transfer unit 1' };
  const ns = server.engine.addressSpace.getOwnNamespace();
  const root = ns.addObject({
    organizedBy: server.engine.addressSpace.rootFolder.objects,
    browseName: 'TransferUnit',
    nodeId: 's=TransferUnit',
  });
  const variable = (id, browseName, dataType, get, set) =>
    ns.addVariable({
      componentOf: root,
      browseName,
      nodeId: id.replace('ns=1;', ''),
      dataType,
      minimumSamplingInterval: TICK_MS,
      ...(set !== undefined && { accessLevel: 'CurrentRead | CurrentWrite', userAccessLevel: 'CurrentRead | CurrentWrite' }),
      value: {
        get: () => new Variant({ dataType: DataType[dataType], value: get() }),
        ...(set !== undefined && { set: (variant) => set(variant.value) }),
      },
    });
  const setSpeed = (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_SPEED) {
      warn({ value }, 'setpoint refused');
      return StatusCodes.BadOutOfRange;
    }
    unit.setpoint = value;
    info({ setpoint: value }, 'setpoint accepted');
    return StatusCodes.Good;
  };
  variable(NODES.speed, 'Speed', 'Double', () => unit.speed, setSpeed);
  variable(NODES.setpoint, 'SpeedSetpoint', 'Double', () => unit.setpoint, setSpeed);
  variable(NODES.occupied, 'Occupied', 'Boolean', () => unit.travel % 1 < PART_LENGTH && unit.travel > 0);
  variable(NODES.parts, 'Parts', 'Int32', () => unit.parts);
  variable(
    NODES.label,
    'Label',
    'String',
    () => unit.label,
    (value) => {
      if (typeof value !== 'string' || value.length > 256) return StatusCodes.BadOutOfRange;
      unit.label = value;
      return StatusCodes.Good;
    },
  );
  const start = ns.addMethod(root, {
    browseName: 'Start',
    nodeId: NODES.start.replace('ns=1;', ''),
    inputArguments: [{ name: 'speed', description: { text: 'belt speed, m/s' }, dataType: DataType.Double }],
    outputArguments: [
      { name: 'running', dataType: DataType.Boolean },
      { name: 'setpoint', dataType: DataType.Double },
    ],
  });
  start.bindMethod(async ([speed], _context) => {
    const status = setSpeed(speed.value);
    if (status !== StatusCodes.Good) return { statusCode: StatusCodes.BadOutOfRange };
    unit.running = true;
    return {
      statusCode: StatusCodes.Good,
      outputArguments: [
        { dataType: DataType.Boolean, value: true },
        { dataType: DataType.Double, value: unit.setpoint },
      ],
    };
  });
  const stop = ns.addMethod(root, {
    browseName: 'Stop',
    nodeId: NODES.stop.replace('ns=1;', ''),
    inputArguments: [],
    outputArguments: [{ name: 'parts', dataType: DataType.Int32 }],
  });
  stop.bindMethod(async (_inputs, _context) => {
    unit.setpoint = 0;
    return { statusCode: StatusCodes.Good, outputArguments: [{ dataType: DataType.Int32, value: unit.parts }] };
  });
  const timer = setInterval(() => {
    const step = (options.ramp * TICK_MS) / 1000;
    unit.speed = Math.abs(unit.setpoint - unit.speed) <= step ? unit.setpoint : unit.speed + Math.sign(unit.setpoint - unit.speed) * step;
    const before = Math.floor(unit.travel);
    unit.travel += (unit.speed * TICK_MS) / 1000;
    if (Math.floor(unit.travel) > before) unit.parts++;
  }, TICK_MS);
  await server.start();
  const port = server.endpoints[0].port;
  const endpoint = `opc.tcp://${options.hostname}:${port}/UA/PLC`;
  return {
    endpoint,
    certificate: join(options.pkiDir, 'own', 'certs', 'certificate.pem'),
    dropSessions: () => {
      for (const session of Object.values(server.engine._sessions ?? {}))
        void server.engine.closeSession(session.authenticationToken, true, 'Terminated');
    },
    stop: async () => {
      clearInterval(timer);
      await server.shutdown(0);
      await serverCertificateManager.dispose();
    },
  };
}

async function main() {
  const options = readOptions();
  const plc = await startPlc(options);
  process.stdout.write(`${JSON.stringify({ endpoint: plc.endpoint, certificate: plc.certificate })}\n`);
  info({ endpoint: plc.endpoint, secureOnly: options.secureOnly, users: options.user === undefined ? 'anonymous' : 'one' }, 'PLC serving');
  process.on('SIGUSR2', () => {
    info({}, 'closing every session');
    plc.dropSessions();
  });
  const quit = () => {
    process.once('SIGTERM', () => process.exit(1));
    process.once('SIGINT', () => process.exit(1));
    void plc.stop().then(() => {
      info({}, 'stopped');
      process.exit(0);
    });
  };
  process.once('SIGTERM', quit);
  process.once('SIGINT', quit);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
