/**
 * Secret strategy (pkg/registry/core/secret): `stringData` is a write-only
 * convenience; its entries are folded into `data` (base64 of their UTF-8
 * bytes, winning over `data` for the same key) and never stored. v1
 * conversion folds them when a Secret is decoded, so an Update's writer owns
 * the `data` keys, never `stringData` (an apply's own keys stay its own).
 */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

function base64Utf8(value: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(value)) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function foldStringData(obj: KubeObject): void {
  const stringData = obj['stringData'];
  if (stringData === undefined) return;
  delete obj['stringData'];
  if (!isObject(stringData)) return;
  const data = isObject(obj['data']) ? { ...obj['data'] } : {};
  for (const [k, v] of Object.entries(stringData)) if (typeof v === 'string') data[k] = base64Utf8(v);
  obj['data'] = data;
}

/** SetDefaults_Secret (type Opaque), and the stringData v1 conversion folds. */
function defaultSecret(obj: KubeObject): void {
  if (!obj['type']) obj['type'] = 'Opaque';
  foldStringData(obj);
}

export const secretStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultSecret,
};
