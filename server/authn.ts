/**
 * The Node host's side of authentication: it reads the files the flags name
 * (the core never touches the file system) and, when no --token-auth-file is
 * given, keeps `<data-dir>/tokens.csv` with one admin token (user
 * kubesim-admin in system:masters) that the kubeconfig it writes carries.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuthenticationOptions } from '../src/core/auth/authentication';
import { parseTokenFile, type StaticToken } from '../src/core/auth/authenticator/tokenfile';
import { systemMasters } from '../src/core/auth/user';
import type { AuthnFlags } from './authFlags';

export interface HostAuthentication {
  options: AuthenticationOptions;
  anonymousAuth: boolean;
  /** The token the written kubeconfig carries. */
  kubeconfigToken?: string;
}

export const adminUser = 'kubesim-admin';

async function ensureAdminTokenFile(dataDir: string): Promise<string> {
  const path = join(dataDir, 'tokens.csv');
  if (!existsSync(path)) {
    await writeFile(path, `${randomBytes(32).toString('base64url')},${adminUser},${randomUUID()},${systemMasters}\n`, { mode: 0o600 });
  }
  return path;
}

export async function hostAuthentication(dataDir: string, flags: AuthnFlags = {}): Promise<HostAuthentication> {
  const tokenPath = flags.tokenAuthFile ?? (await ensureAdminTokenFile(dataDir));
  const tokenFile: StaticToken[] = parseTokenFile(await readFile(tokenPath, 'utf8'), tokenPath);
  const admin = tokenFile.find((t) => t.user.groups.includes(systemMasters)) ?? tokenFile[0];
  return {
    options: { tokenFile, apiAudiences: flags.apiAudiences },
    anonymousAuth: flags.anonymousAuth ?? true,
    kubeconfigToken: admin?.token,
  };
}
