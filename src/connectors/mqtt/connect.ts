/**
 * How the MQTT sessions (parameters and workflows) connect: the client options for one broker
 * with its credentials and TLS, and what a refused or failed connection means, in words that
 * name neither the broker nor a secret.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { IClientOptions } from 'mqtt';
import { LIMITS } from '../../limits.js';
import type { TransportAddress } from '../binding.js';
import { usesTls, type TransportCredentials } from '../credentials.js';

/**
 * Client options for `transport`: reconnection is the session's own (backoff with jitter), so
 * the client never reconnects by itself. With TLS the server's certificate is always verified
 * (against `ca` when given, else the system's CAs).
 */
export function mqttClientOptions(
  transport: TransportAddress,
  credentials: Readonly<TransportCredentials> | undefined,
  extra: Partial<IClientOptions> = {},
): IClientOptions {
  const tls = usesTls(credentials);
  return {
    host: transport.host,
    port: transport.port,
    protocol: tls ? 'mqtts' : 'mqtt',
    clientId: `semantic-middleware-${randomBytes(6).toString('hex')}`,
    reconnectPeriod: 0,
    connectTimeout: LIMITS.connectorWriteTimeoutMs,
    resubscribe: false,
    ...(credentials?.username !== undefined && { username: credentials.username }),
    ...(credentials?.password !== undefined && { password: credentials.password }),
    ...(tls && {
      rejectUnauthorized: true,
      // SNI carries host names only; Node warns when it is given an IP address.
      ...(isIP(transport.host) === 0 && { servername: transport.host }),
      ...(credentials?.ca !== undefined && { ca: credentials.ca }),
      ...(credentials?.cert !== undefined && { cert: credentials.cert, key: credentials.key }),
    }),
    ...extra,
  };
}

// CONNACK return codes of MQTT 3.1.1 (4 bad user name or password, 5 not authorized) and reason
// codes of MQTT 5 (134, 135). Mosquitto answers a wrong password with 5, so both say the same.
const REFUSED = new Set([4, 5, 134, 135]);

/**
 * Why a connection failed, for a warning: refused credentials, refused authorization, a TLS
 * certificate that does not verify, or undefined for an ordinary network failure (retried
 * quietly). Built from codes only: the messages of TLS errors name the host.
 */
export function connectionProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && REFUSED.has(code))
    return 'the broker refused the user name or password as not authorized (check the broker credentials settings)';
  if (typeof code === 'string' && /CERT|TLS|SSL|SELF_SIGNED|ISSUER|SIGNATURE/u.test(code))
    return `the broker's TLS certificate was not accepted (${code}): check the broker CA file and the host name it was issued for`;
  if (typeof code === 'string' && code.startsWith('ERR_SSL')) return `the TLS handshake with the broker failed (${code})`;
  return undefined;
}
