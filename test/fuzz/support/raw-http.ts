/**
 * Raw HTTP/1.1 over node:net, for requests fetch would refuse or normalize: bad header bytes,
 * duplicate Content-Length, broken chunking, invalid UTF-8 bodies, huge headers.
 */
import { connect } from 'node:net';

/** Where to connect: a loopback port or a Unix socket. */
export type RawTarget = { port: number } | { socket: string };

/** What came back: the status (undefined when the server closed without answering) and the body text. */
export interface RawAnswer {
  status: number | undefined;
  head: string;
  body: string;
}

/**
 * Sends `request` as is and reads the answer until the server closes the connection (send
 * `Connection: close`) or `timeoutMs` passes; the client's side is closed after 300 ms.
 */
export function rawRequest(target: RawTarget, request: Buffer | string, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = 'socket' in target ? connect(target.socket) : connect(target.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no end of the answer within ${timeoutMs} ms; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`,
        ),
      );
    }, timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      clearTimeout(halfClose);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const head = end < 0 ? text : text.slice(0, end);
      const m = /^HTTP\/1\.[01] (\d{3})/u.exec(head);
      resolve({ status: m ? Number(m[1]) : undefined, head, body: end < 0 ? '' : text.slice(end + 4) });
    });
    // The write side stays open a while: a server may close a half-closed connection before it
    // answers a request whose body it is still decoding. A request the server waits on (a body
    // shorter than its Content-Length) is then ended, as a client giving up would.
    socket.write(request);
    const halfClose = setTimeout(() => socket.end(), 300);
  });
}

/** A request with `Connection: close` and the given extra header lines and body. */
export function rawHttp(method: string, path: string, headers: readonly string[] = [], body: Buffer | string = ''): Buffer {
  const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}
