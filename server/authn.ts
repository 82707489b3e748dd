/**
 * The Node host's side of authentication: it reads the files the flags name
 * (the core never touches the file system) and, when no --token-auth-file is
 * given, keeps `<data-dir>/tokens.csv` with one admin token (user
 * kubesim-admin in system:masters) that the kubeconfig it writes carries.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { defaultServiceAccountIssuer, type AuthenticationOptions } from '../src/core/auth/authentication';
import { parseTokenFile, type StaticToken } from '../src/core/auth/authenticator/tokenfile';
import { systemMasters } from '../src/core/auth/user';
import type { AuthnFlags } from './authFlags';
import { controllerEnabled } from '../src/core/controllers/names';
import { parseCaBundle, type CaBundles } from './clientCerts';
import { hostJwtAuthenticators, type HostJwtOptions } from './oidc';
import { webhookCall } from './webhookClient';

export interface HostAuthentication {
  options: AuthenticationOptions;
  /** Authority bundles the TLS port verifies client certificates against. */
  caBundles: CaBundles;
  anonymousAuth: boolean;
  /** The token the written kubeconfig carries. */
  kubeconfigToken?: string;
  /** Stops watching configuration files. */
  stop(): void;
}

export const adminUser = 'kubesim-admin';

async function ensureAdminTokenFile(dataDir: string): Promise<string> {
  const path = join(dataDir, 'tokens.csv');
  if (!existsSync(path)) {
    await writeFile(path, `${randomBytes(32).toString('base64url')},${adminUser},${randomUUID()},${systemMasters}\n`, { mode: 0o600 });
  }
  return path;
}

/** PEM blocks of a key file: keys and certificates, as --service-account-key-file accepts them. */
function pemBlocks(text: string): string[] {
  return text.match(/-----BEGIN [^-]+-----[\s\S]+?-----END [^-]+-----/g) ?? [];
}

async function publicJwks(path: string): Promise<JWK[]> {
  const blocks = pemBlocks(await readFile(path, 'utf8'));
  if (!blocks.length) throw new Error(`failed to parse service account key file ${JSON.stringify(path)}: data does not contain any valid RSA or ECDSA public keys`);
  return blocks.map((b) => createPublicKey(b).export({ format: 'jwk' }) as JWK);
}

/** The signing key: the flag's file, or `<data-dir>/pki/sa.key` generated once (tokens stay valid across restarts). */
async function signingJwk(dataDir: string, path: string | undefined): Promise<JWK> {
  let file = path;
  if (!file) {
    const dir = join(dataDir, 'pki');
    file = join(dir, 'sa.key');
    if (!existsSync(file)) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      await writeFile(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    }
  }
  return createPrivateKey(await readFile(file, 'utf8')).export({ format: 'jwk' }) as JWK;
}

export interface HostAuthenticationOptions extends HostJwtOptions {
  /** --tls-private-key-file: verifies service account tokens when --service-account-key-file is unset, as upstream. */
  tlsPrivateKeyFile?: string;
}

export async function hostAuthentication(dataDir: string, flags: AuthnFlags = {}, options: HostAuthenticationOptions = {}): Promise<HostAuthentication> {
  const tokenPath = flags.tokenAuthFile ?? (await ensureAdminTokenFile(dataDir));
  const tokenFile: StaticToken[] = parseTokenFile(await readFile(tokenPath, 'utf8'), tokenPath);
  const admin = tokenFile.find((t) => t.user.groups.includes(systemMasters)) ?? tokenFile[0];
  const caBundles: CaBundles = {};
  if (flags.clientCaFile) caBundles['client-ca'] = parseCaBundle(await readFile(flags.clientCaFile, 'utf8'), flags.clientCaFile);
  if (flags.requestheaderClientCaFile) caBundles['requestheader-ca'] = parseCaBundle(await readFile(flags.requestheaderClientCaFile, 'utf8'), flags.requestheaderClientCaFile);
  const requestHeader = flags.requestheaderUsernameHeaders?.length && flags.requestheaderClientCaFile
    ? {
      usernameHeaders: flags.requestheaderUsernameHeaders, uidHeaders: flags.requestheaderUidHeaders, groupHeaders: flags.requestheaderGroupHeaders,
      extraHeaderPrefixes: flags.requestheaderExtraHeadersPrefix, allowedNames: flags.requestheaderAllowedNames,
    }
    : undefined;
  const serviceAccountIssuers = flags.serviceAccountIssuers?.length ? flags.serviceAccountIssuers : [defaultServiceAccountIssuer];
  const jwt = hostJwtAuthenticators(flags, serviceAccountIssuers, options);
  return {
    caBundles,
    options: {
      clientCertificates: !!flags.clientCaFile,
      requestHeader,
      tokenFile,
      apiAudiences: flags.apiAudiences,
      jwt: jwt.jwt,
      anonymousPaths: jwt.anonymous?.enabled && jwt.anonymous.conditions?.length ? jwt.anonymous.conditions.map((c) => c.path) : undefined,
      bootstrapTokens: flags.enableBootstrapTokenAuth,
      webhook: flags.webhookConfigFile ? { call: webhookCall(flags.webhookConfigFile), cacheTtlMs: flags.webhookCacheTtlMs, version: flags.webhookVersion } : undefined,
      controllers: { bootstrapSigner: controllerEnabled('bootstrap-signer-controller', flags.controllers), tokenCleaner: controllerEnabled('token-cleaner-controller', flags.controllers) },
      serviceAccounts: {
        issuers: flags.serviceAccountIssuers,
        signingKey: await signingJwk(dataDir, flags.serviceAccountSigningKeyFile),
        verificationKeys: (await Promise.all((flags.serviceAccountKeyFiles?.length ? flags.serviceAccountKeyFiles : options.tlsPrivateKeyFile ? [options.tlsPrivateKeyFile] : []).map(publicJwks))).flat(),
        lookup: flags.serviceAccountLookup,
        maxTokenExpirationSeconds: flags.serviceAccountMaxTokenExpirationSeconds,
      },
    },
    anonymousAuth: jwt.anonymous ? jwt.anonymous.enabled : flags.anonymousAuth ?? true,
    kubeconfigToken: admin?.token,
    stop: jwt.stop,
  };
}
