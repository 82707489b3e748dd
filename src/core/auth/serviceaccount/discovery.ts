/**
 * Service account issuer discovery (ServiceAccountIssuerDiscovery, GA): the
 * OpenID provider configuration and the JWKS that verify service account
 * tokens, so other systems can validate them without calling the API server.
 */
import type { ServiceAccountTokens } from './tokens';

const cacheControl = 'public, max-age=3600';

export async function serveIssuerDiscovery(request: Request, path: string, tokens: ServiceAccountTokens): Promise<Response | undefined> {
  if (path !== '/.well-known/openid-configuration' && path !== '/openid/v1/jwks') return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  const body = path === '/openid/v1/jwks' ? await tokens.jwks() : await tokens.openIdConfiguration();
  const contentType = path === '/openid/v1/jwks' ? 'application/jwk-set+json' : 'application/json';
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': contentType, 'cache-control': cacheControl } });
}
