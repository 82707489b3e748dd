/**
 * LimitRange defaults (SetDefaults_LimitRangeItem), which kube applies when
 * it decodes one: a Container item's missing `default` takes its `max`, and
 * a missing `defaultRequest` its `default`, else its `min`. What
 * `kubectl describe limitrange` shows as Default Request and Default Limit.
 * Quantities are stored as resource.Quantity encodes them, as are a
 * ResourceQuota's hard limits.
 */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';
import { defaultResourceList } from './resourceList';

function defaultItems(lr: KubeObject): void {
  const spec = lr['spec'];
  if (!isObject(spec) || !Array.isArray(spec['limits'])) return;
  for (const item of spec['limits']) {
    if (!isObject(item)) continue;
    for (const field of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) defaultResourceList(item[field]);
    if (item['type'] !== 'Container') continue;
    const def = isObject(item['default']) ? item['default'] : {};
    const defReq = isObject(item['defaultRequest']) ? item['defaultRequest'] : {};
    for (const [k, v] of Object.entries(isObject(item['max']) ? item['max'] : {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in defReq)) defReq[k] = v;
    for (const [k, v] of Object.entries(isObject(item['min']) ? item['min'] : {})) if (!(k in defReq)) defReq[k] = v;
    // Go encodes maps with sorted keys; empty maps are omitted.
    const sorted = (m: Record<string, unknown>) => Object.fromEntries(Object.keys(m).sort().map((k) => [k, m[k]]));
    if (Object.keys(def).length) item['default'] = sorted(def);
    if (Object.keys(defReq).length) item['defaultRequest'] = sorted(defReq);
  }
}

export const limitRangeStrategy: Partial<ResourceStrategy> = {
  defaulter: defaultItems,
};

export const resourceQuotaStrategy: Partial<ResourceStrategy> = {
  defaulter: (obj) => defaultResourceList(isObject(obj['spec']) ? obj['spec']['hard'] : undefined),
};
