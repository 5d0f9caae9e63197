/**
 * Loads `node-opcua-client` on first use only (it costs start-up time and tens of MB; a sidecar
 * without an OPC UA binding never loads it), and routes node-opcua's own console output into
 * the sidecar's pino logger at debug level. Without that, node-opcua prints plain-text lines
 * to stdout (e.g. its PKCS#1 v1.5 warning on Node 20, W27, printed after an asynchronous key
 * test that starts at import) between the sidecar's JSON log lines.
 */
import { format } from 'node:util';
import type { Logger } from '../../lib/logger.js';

/** The `node-opcua-client` module. */
export type OpcuaModule = typeof import('node-opcua-client');

let loading: Promise<OpcuaModule> | undefined;
let sink: Logger | undefined;

/** node-opcua's print functions take a context object (file and line) first, then the message parts. */
const forward =
  (level: string) =>
  (_context: unknown, ...parts: unknown[]): void =>
    sink?.debug({ opcuaLog: level, text: format(...parts) }, 'node-opcua');

/**
 * The node-opcua client module, imported once; its log output goes to `logger` (debug level)
 * from now on, or to the logger given last.
 */
export async function loadOpcua(logger: Logger): Promise<OpcuaModule> {
  sink = logger;
  loading ??= import('node-opcua-client').then((opcua) => {
    opcua.setWarningLogger(forward('warning'));
    opcua.setErrorLogger(forward('error'));
    opcua.setDebugLogger(forward('debug'));
    return opcua;
  });
  return loading;
}

const managers = new Map<string, Promise<CertificateManager>>();

/** node-opcua's certificate manager (the client's own certificate, trusted and rejected server certificates). */
export type CertificateManager = InstanceType<(typeof import('node-opcua-certificate-manager'))['OPCUACertificateManager']>;

/**
 * The certificate store in `dir`, created on first use (`own/` with a self-signed certificate
 * made on the first connection, `trusted/certs/`, `rejected/`, `issuers/`). A server
 * certificate is trusted only once it is in `trusted/certs/`: an unknown one is put into
 * `rejected/` and the connection refused. One manager per directory per process.
 */
export function certificateManager(dir: string): Promise<CertificateManager> {
  let manager = managers.get(dir);
  if (manager === undefined) {
    manager = import('node-opcua-certificate-manager').then(async ({ OPCUACertificateManager }) => {
      const created = new OPCUACertificateManager({
        rootFolder: dir,
        automaticallyAcceptUnknownCertificate: false,
        disableFileWatchers: true,
      });
      await created.initialize();
      return created;
    });
    managers.set(dir, manager);
    manager.catch(() => managers.delete(dir)).catch(() => undefined);
  }
  return manager;
}
