/**
 * One connection to one OPC UA server that reconnects by itself: a secure channel and one
 * session, rebuilt from scratch with exponential backoff and jitter after any loss (channel
 * closed, session closed or keep-alive failed, subscription terminated). A warning names what to
 * check when the server refuses the user, or a certificate is not trusted on either side (once
 * per streak, naming neither the server nor a secret); every loss is one warning. node-opcua's
 * own reconnection is switched off so that there is one retry policy, the connectors'.
 */
import type { ClientSession, OPCUAClient, UserIdentityInfo } from 'node-opcua-client';
import { LIMITS } from '../../limits.js';
import { reconnectDelayMs, type BrokerConnectionOptions } from '../mqtt/broker-connection.js';
import { withTimeout } from '../mqtt/session.js';
import { certificateManager, loadOpcua, type CertificateManager, type OpcuaModule } from './load.js';
import type { OpcuaEndpoint } from './metadata.js';
import { connectionProblem, statusName } from './problems.js';

/** Options of {@link OpcuaConnection.open}: those of an MQTT broker connection, for a server. */
export interface OpcuaConnectionOptions extends Pick<BrokerConnectionOptions, 'credentials' | 'logger' | 'serves'> {
  readonly endpoint: OpcuaEndpoint;
  /** Certificate store (own certificate, trusted and rejected server certificates); undefined: node-opcua's default. */
  readonly pkiDir: string | undefined;
  /** Run on every new session before it counts as connected; a rejection drops the connection and retries. */
  onSession(session: ClientSession, opcua: OpcuaModule): Promise<void>;
}

// Server_ServerStatus_State (OPC UA Part 5): read by the keep-alive.
const SERVER_STATE = 'i=2259';
// How long closing a session may take before the channel is closed anyway.
const SESSION_CLOSE_MS = 1_000;

export class OpcuaConnection {
  private client: OPCUAClient | undefined;
  private current: ClientSession | undefined;
  private up = false;
  private attempt = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private problem: string | undefined;

  private constructor(
    /** The node-opcua client module. */
    readonly opcua: OpcuaModule,
    private readonly options: OpcuaConnectionOptions,
  ) {}

  /** Connects in the background; resolves once node-opcua is loaded, not once it is connected. */
  static async open(options: OpcuaConnectionOptions): Promise<OpcuaConnection> {
    const connection = new OpcuaConnection(await loadOpcua(options.logger), options);
    connection.schedule(0);
    return connection;
  }

  /** Whether the session is activated now. */
  connected(): boolean {
    return this.up;
  }

  /** The active session, or undefined while not connected. */
  session(): ClientSession | undefined {
    return this.up ? this.current : undefined;
  }

  /** Whether {@link OpcuaConnection.close} was called. */
  isClosed(): boolean {
    return this.closed;
  }

  /** Closes the session and channel and stops reconnecting; repeatable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retry);
    await this.teardown();
  }

  /** Drops the connection (a warning says why) and reconnects after the backoff. */
  lost(reason: string): void {
    if (this.closed || this.retry !== undefined) return;
    if (this.up) this.options.logger.warn({ ...this.options.serves(), reason }, 'connector connection lost; reconnecting');
    this.up = false;
    void this.teardown().then(() => this.schedule(reconnectDelayMs(this.attempt++)));
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.retry !== undefined) return;
    this.options.logger.debug({ delayMs, attempt: this.attempt }, 'connector connecting');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connectOnce();
    }, delayMs);
  }

  private async connectOnce(): Promise<void> {
    if (this.closed) return;
    const { endpoint, logger, pkiDir } = this.options;
    let attempt: OPCUAClient | undefined;
    try {
      const certificates = pkiDir === undefined ? undefined : await this.certificates(pkiDir);
      // Closed while the certificates loaded (slow on a loaded machine): no client at all.
      if (this.closed) return;
      const client =
        (attempt =
        this.client =
          this.opcua.OPCUAClient.create({
            applicationName: 'semantic-middleware',
            endpointMustExist: false,
            securityMode: this.opcua.MessageSecurityMode[endpoint.securityMode],
            securityPolicy: this.opcua.SecurityPolicy[endpoint.securityPolicy],
            // One retry policy: the connection's own backoff, not node-opcua's.
            connectionStrategy: { maxRetry: 0, initialDelay: LIMITS.connectorReconnectMinMs, maxDelay: LIMITS.connectorReconnectMinMs },
            keepSessionAlive: true,
            ...(certificates !== undefined && { clientCertificateManager: certificates }),
          }));
      client.on('connection_lost', () => this.lostIf(client, 'the secure channel to the server was lost'));
      client.on('close', () => this.lostIf(client, 'the secure channel to the server was closed'));
      await client.connect(endpoint.url);
      const session = await client.createSession(this.identity());
      // Closed or superseded meanwhile: teardown() ended the client but never saw this session.
      if (this.client !== client) return void (await ended(client, session));
      session.on('session_closed', () => this.lostIf(client, 'the server closed the session'));
      session.on('keepalive_failure', () => this.lostIf(client, 'the session stopped answering keep-alives'));
      // node-opcua makes a new session by itself when the server dropped one; the connection
      // rebuilds everything instead, so that subscriptions and readiness follow one path.
      session.on('session_restored', () => this.lostIf(client, 'the server closed the session'));
      this.current = session;
      await this.options.onSession(session, this.opcua);
      if (this.closed || this.client !== client) return;
      this.up = true;
      this.attempt = 0;
      this.problem = undefined;
      logger.info(this.options.serves(), 'connector connected');
      this.keepAlive(client, session);
    } catch (error) {
      // A client ended by close() or replaced after a loss fails its pending steps: that is no
      // news, and failed() would tear down its successor.
      if (this.closed || (attempt !== undefined && this.client !== attempt)) return;
      this.failed(error);
    }
  }

  /** Reads the server's state every {@link LIMITS.connectorKeepAliveMs} while `session` is the current one. */
  private keepAlive(client: OPCUAClient, session: ClientSession): void {
    const timer = setTimeout(() => {
      const read = session.read({ nodeId: SERVER_STATE, attributeId: this.opcua.AttributeIds.Value });
      withTimeout(read, LIMITS.connectorWriteTimeoutMs, () => new Error('no answer in time'))
        .then((value) => {
          if (value.statusCode.isNotGood()) throw new Error(value.statusCode.name);
          if (this.client === client && !this.closed) this.keepAlive(client, session);
        })
        .catch((error: unknown) => {
          this.options.logger.debug({ err: error }, 'OPC UA keep-alive read failed');
          this.lostIf(client, `the session stopped answering (${statusName(error) ?? 'no answer in time'})`);
        });
    }, LIMITS.connectorKeepAliveMs);
    // The timer never keeps the process alive; close() drops the client, which ends the chain.
    timer.unref();
  }

  /**
   * The certificate store, re-read after a failed attempt: it does not watch its folders, and an
   * operator may just have moved the server's certificate from rejected/ to trusted/certs/.
   */
  private async certificates(dir: string): Promise<CertificateManager> {
    const manager = await certificateManager(dir);
    if (this.attempt > 0) await manager.reloadCertificates();
    return manager;
  }

  private lostIf(client: OPCUAClient, reason: string): void {
    if (this.client === client) this.lost(reason);
  }

  private failed(error: unknown): void {
    const { logger } = this.options;
    logger.debug({ err: error }, 'OPC UA connection failed');
    const problem = connectionProblem(error) ?? 'the server does not answer (it is down, or the endpoint is wrong)';
    if (problem !== this.problem) logger.warn({ ...this.options.serves(), reason: problem }, 'connector cannot connect');
    this.problem = problem;
    this.up = false;
    void this.teardown().then(() => this.schedule(reconnectDelayMs(this.attempt++)));
  }

  private identity(): UserIdentityInfo {
    const { credentials, endpoint } = this.options;
    const userName = endpoint.userName ?? credentials?.username;
    if (userName === undefined) return { type: this.opcua.UserTokenType.Anonymous };
    return { type: this.opcua.UserTokenType.UserName, userName, password: credentials?.password ?? '' };
  }

  private async teardown(): Promise<void> {
    const client = this.client;
    const session = this.current;
    this.client = undefined;
    this.current = undefined;
    this.up = false;
    if (client === undefined) return;
    await ended(client, session);
  }
}

/**
 * Closes a session and disconnects its client, each within {@link SESSION_CLOSE_MS}: a session on
 * a dead channel cannot be closed (the server times it out), and a stop must not wait on either.
 */
async function ended(client: OPCUAClient, session?: ClientSession): Promise<void> {
  client.removeAllListeners();
  session?.removeAllListeners();
  const bounded = (step: Promise<unknown>) => withTimeout(step, SESSION_CLOSE_MS, () => new Error('timeout')).catch(() => undefined);
  if (session !== undefined) await bounded(session.close(true));
  await bounded(client.disconnect());
}
