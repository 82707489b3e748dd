/** resource.k8s.io (pkg/apis/resource/v1/defaults.go and the generated walk): the scheme's defaults for ResourceClaims and their templates. */
import { isObject, type KubeObject } from '../../api/types';
import type { ResourceStrategy } from '../generic/strategy';

type Obj = Record<string, unknown>;

/**
 * SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest: a request
 * without an allocation mode asks for an exact count, one device unless told;
 * a toleration without an operator is Equal (DeviceToleration's +default).
 */
function defaultDeviceRequest(request: Obj): void {
  if (!request['allocationMode']) request['allocationMode'] = 'ExactCount';
  if (request['allocationMode'] === 'ExactCount' && !request['count']) request['count'] = 1;
  defaultTolerations(request['tolerations']);
}

function defaultTolerations(list: unknown): void {
  if (Array.isArray(list)) for (const t of list) if (isObject(t) && !t['operator']) t['operator'] = 'Equal';
}

/** A ResourceClaimSpec: each request's exactly and firstAvailable subrequests. */
function defaultClaimSpec(spec: unknown): void {
  const devices = isObject(spec) ? spec['devices'] : undefined;
  if (!isObject(devices) || !Array.isArray(devices['requests'])) return;
  for (const request of devices['requests']) {
    if (!isObject(request)) continue;
    if (isObject(request['exactly'])) defaultDeviceRequest(request['exactly']);
    if (Array.isArray(request['firstAvailable'])) for (const sub of request['firstAvailable']) if (isObject(sub)) defaultDeviceRequest(sub);
  }
}

/** SetObjectDefaults_ResourceClaim: the spec's requests, and the tolerations of allocated devices. */
function defaultResourceClaim(obj: KubeObject): void {
  defaultClaimSpec(obj['spec']);
  const allocation = isObject(obj['status']) ? obj['status']['allocation'] : undefined;
  const devices = isObject(allocation) ? allocation['devices'] : undefined;
  if (isObject(devices) && Array.isArray(devices['results'])) for (const r of devices['results']) if (isObject(r)) defaultTolerations(r['tolerations']);
}

/** SetObjectDefaults_ResourceClaimTemplate: the template's claim spec. */
function defaultResourceClaimTemplate(obj: KubeObject): void {
  if (isObject(obj['spec'])) defaultClaimSpec(obj['spec']['spec']);
}

export const strategies: Record<string, Partial<ResourceStrategy>> = {
  resourceclaims: { defaulter: defaultResourceClaim },
  resourceclaimtemplates: { defaulter: defaultResourceClaimTemplate },
};
