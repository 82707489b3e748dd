/**
 * Client certificates (k8s.io/apiserver/pkg/authentication/request/x509).
 * The host terminates TLS and verifies the peer's chain against each
 * configured authority bundle (--client-ca-file, --requestheader-client-ca-file);
 * it attaches the result to the request with withClientCertificate, so the
 * core stays free of TLS. A verified certificate is the user CN in groups O;
 * one no bundle verifies is rejected (401).
 */
import type { AuthenticationOutcome, RequestAuthenticator } from './types';

/** Which authority bundle verified a client certificate. */
export type CertificateAuthority = 'client-ca' | 'requestheader-ca';

export interface ClientCertificate {
  commonName: string;
  organizations: string[];
  /** Bundles whose authorities verified the chain (empty: presented but unverified). */
  verifiedBy: CertificateAuthority[];
  /** Why verification failed, in Go's words (`x509: certificate signed by unknown authority`). */
  verifyError?: string;
}

const certificates = new WeakMap<Request, ClientCertificate>();

export function withClientCertificate(request: Request, cert: ClientCertificate): void {
  certificates.set(request, cert);
}

export function clientCertificateFrom(request: Request): ClientCertificate | undefined {
  return certificates.get(request);
}

export function x509Authenticator(): RequestAuthenticator {
  return {
    name: 'x509',
    authenticate(request): AuthenticationOutcome {
      const cert = certificates.get(request);
      if (!cert) return { kind: 'none' };
      if (!cert.verifiedBy.includes('client-ca')) return { kind: 'rejected', authenticator: 'x509', reason: cert.verifyError ?? 'x509: certificate signed by unknown authority' };
      if (!cert.commonName) return { kind: 'rejected', authenticator: 'x509', reason: 'x509: certificate has no common name' };
      return { kind: 'authenticated', authenticator: 'x509', response: { user: { username: cert.commonName, groups: [...cert.organizations] } } };
    },
  };
}
