/**
 * What a failed OPC UA connection or call means, in words that name neither the server nor a
 * secret: read from the status-code names node-opcua puts into its errors (`BadUserAccessDenied`)
 * and its certificate checks, never from the rest of the message (it names the endpoint).
 */

// Status codes of an ActivateSession that refused the user.
const REFUSED_USER = /\b(BadUserAccessDenied|BadIdentityTokenRejected|BadIdentityTokenInvalid|BadUserSignatureInvalid)\b/u;
// Status codes of a server that does not trust this client's certificate, or of a secure channel it refused.
const UNTRUSTED_CLIENT = /\b(BadCertificateUntrusted|BadSecurityChecksFailed|BadCertificateInvalid|BadCertificateUseNotAllowed)\b/u;
const SECURITY_REFUSED = /\b(BadSecurityPolicyRejected|BadSecurityModeRejected)\b/u;

/** The status-code name (`BadNodeIdUnknown`) in an error from node-opcua, if it carries one. */
export function statusName(error: unknown): string | undefined {
  const code = (error as { statusCode?: { name?: unknown } } | null)?.statusCode?.name;
  if (typeof code === 'string') return code;
  const found = /\bBad[A-Za-z]+\b/u.exec(error instanceof Error ? error.message : '');
  return found?.[0];
}

/**
 * Why a connection failed, for a warning: a refused user, a certificate not trusted by the
 * server or by this instance, a refused security mode; undefined for anything else (the server
 * is down or unreachable).
 */
export function connectionProblem(error: unknown): string | undefined {
  const text = error instanceof Error ? error.message : String(error);
  const status = statusName(error);
  if (REFUSED_USER.test(text))
    return `the server refused the user name or password (${status ?? 'access denied'}): check the user name and the password file`;
  // node-opcua's own check of the server's certificate against this instance's trust list.
  if (/server certificate verification failed/iu.test(text))
    return "the server's certificate is not trusted by this instance: move it from the PKI directory's rejected/ to trusted/certs/";
  if (UNTRUSTED_CLIENT.test(text))
    return `the server does not trust this instance's certificate (${status}): trust the certificate in the PKI directory's own/certs/ on the server`;
  if (SECURITY_REFUSED.test(text)) return `the server refused the security mode or policy (${status}): check the declared ones`;
  return undefined;
}
