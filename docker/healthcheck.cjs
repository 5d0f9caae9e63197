// The image's HEALTHCHECK: 0 when GET /healthz on SIDECAR_PORT (8000 when unset) answers 200,
// whether the sidecar serves TLS (http.tls in its config, SIDECAR_HTTP_TLS_CERT_FILE) or plain
// HTTP: HTTPS is tried first, and a plain server refuses the handshake at once. The certificate is
// not verified: this is the container asking itself on loopback, under a name the certificate
// need not carry. CommonJS, so that it runs without the project's ESM loader.
'use strict';
const http = require('node:http');
const https = require('node:https');

const TIMEOUT_MS = 4000;
const target = { host: '127.0.0.1', port: Number(process.env.SIDECAR_PORT || 8000), path: '/healthz', timeout: TIMEOUT_MS };

/** The status code of GET /healthz through `client`. */
function status(client, options) {
  return new Promise((resolve, reject) => {
    const request = client.get({ ...target, ...options }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
  });
}

status(https, { rejectUnauthorized: false })
  .catch(() => status(http, {}))
  .then(
    (code) => process.exit(code === 200 ? 0 : 1),
    () => process.exit(1),
  );
