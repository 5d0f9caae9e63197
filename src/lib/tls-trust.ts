/**
 * What to do when a TLS peer's certificate is not trusted: the codes Node's TLS gives such a
 * failure, and the hint added to the error that names it.
 */

// Node's verification failures, e.g. DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED.
const UNTRUSTED = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/u;

/**
 * `; this process does not trust <whose> certificate (give it the issuing CA, ...)` when `code`
 * is a certificate verification failure, else ''.
 * @example untrustedCertificateHint('DEPTH_ZERO_SELF_SIGNED_CERT', "the receiver's")
 */
export function untrustedCertificateHint(code: string | number | undefined, whose: string): string {
  return code !== undefined && UNTRUSTED.test(String(code))
    ? `; this process does not trust ${whose} certificate (give it the issuing CA, e.g. NODE_EXTRA_CA_CERTS=/path/ca.pem)`
    : '';
}
