/**
 * AuthorizationConfiguration (apiserver.config.k8s.io/v1, `--authorization-config`):
 * validated as kube-apiserver validates it (pkg/apis/apiserver/validation),
 * then turned into the chain: privileged groups, then each authorizer in
 * file order. Webhook calls go through a transport the host builds from
 * the webhook's kubeconfig file.
 */
import { fieldErrorsAggregate, type FieldError } from '../../errors';
import { parseGoDuration } from '../../http/serializers/protobuf/goDuration';
import { isDNS1123Label } from '../../validation/names';
import { privilegedGroupsAuthorizer } from './builtin';
import type { AuthorizerFactory } from './modes';
import type { Authorizer } from './types';
import { unionAuthorizer } from './union';
import { compileMatchConditions, webhookAuthorizer, type ReviewTransport, type WebhookOptions } from './webhook';

export interface AuthorizationConfigDeps {
  /** The transport for a webhook's kubeconfig file. */
  transportFor(kubeConfigFile: string): ReviewTransport;
}

export interface LoadedAuthorizationConfig {
  factory: AuthorizerFactory;
  /** Authorizer types in order, e.g. ['Node', 'RBAC', 'Webhook']. */
  types: string[];
  /** The webhook authorizers built, by name (for tests and metrics). */
  webhooks: Map<string, ReturnType<typeof webhookAuthorizer>>;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const maxMatchConditions = 64;
const maxTimeoutMs = 30_000;

function durationMs(v: unknown, field: string, errs: FieldError[]): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  try {
    return Number(parseGoDuration(String(v)) / 1_000_000n);
  } catch {
    errs.push({ type: 'FieldValueInvalid', field, value: String(v), detail: 'must be a valid duration' });
    return undefined;
  }
}

export function loadAuthorizationConfiguration(doc: unknown, deps: AuthorizationConfigDeps): LoadedAuthorizationConfig {
  const errs: FieldError[] = [];
  if (!isObj(doc)) throw new Error('authorization configuration: not an object');
  const apiVersion = doc['apiVersion'];
  if (!['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.config.k8s.io/v1alpha1'].includes(String(apiVersion)) || doc['kind'] !== 'AuthorizationConfiguration') {
    throw new Error(`no kind "${String(doc['kind'])}" is registered for version "${String(apiVersion)}" in scheme`);
  }
  const list = Array.isArray(doc['authorizers']) ? doc['authorizers'] : [];
  if (!list.length) errs.push({ type: 'FieldValueRequired', field: 'authorizers', detail: 'at least one authorization mode must be defined' });
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  const builders: ((f: Parameters<AuthorizerFactory>[0]) => Authorizer)[] = [];
  const types: string[] = [];
  const webhooks = new Map<string, ReturnType<typeof webhookAuthorizer>>();

  list.forEach((raw, i) => {
    const path = `authorizers[${i}]`;
    const a = isObj(raw) ? raw : {};
    const type = String(a['type'] ?? '');
    const name = String(a['name'] ?? '');
    if (!type) errs.push({ type: 'FieldValueRequired', field: `${path}.type`, detail: '' });
    else if (!['Webhook', 'Node', 'RBAC'].includes(type)) errs.push({ type: 'FieldValueNotSupported', field: `${path}.type`, value: type, valueText: undefined, detail: 'supported values: "Node", "RBAC", "Webhook"' });
    else if (type !== 'Webhook' && seenTypes.has(type)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.type`, value: type });
    seenTypes.add(type);
    if (!name) errs.push({ type: 'FieldValueRequired', field: `${path}.name`, detail: '' });
    else {
      for (const msg of isDNS1123Label(name)) errs.push({ type: 'FieldValueInvalid', field: `${path}.name`, value: name, detail: msg });
      if (seenNames.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, value: name });
      seenNames.add(name);
    }
    const wh = a['webhook'];
    if (type !== 'Webhook') {
      if (wh !== undefined && wh !== null) errs.push({ type: 'FieldValueInvalid', field: `${path}.webhook`, value: 'non-null', detail: 'may only be specified when type=Webhook' });
      if (type === 'RBAC') builders.push((d) => d.rbac());
      if (type === 'Node') builders.push((d) => d.node());
      types.push(type);
      return;
    }
    if (!isObj(wh)) {
      errs.push({ type: 'FieldValueRequired', field: `${path}.webhook`, detail: 'required when type=Webhook' });
      return;
    }
    const wp = `${path}.webhook`;
    const timeoutMs = durationMs(wh['timeout'], `${wp}.timeout`, errs);
    if (timeoutMs === undefined) {
      if (!wh['timeout']) errs.push({ type: 'FieldValueRequired', field: `${wp}.timeout`, detail: '' });
    } else if (timeoutMs > maxTimeoutMs) errs.push({ type: 'FieldValueInvalid', field: `${wp}.timeout`, value: String(wh['timeout']), detail: 'must be <= 30s' });
    else if (timeoutMs <= 0) errs.push({ type: 'FieldValueInvalid', field: `${wp}.timeout`, value: String(wh['timeout']), detail: 'must be > 0s' });
    const authorizedTTLMs = durationMs(wh['authorizedTTL'], `${wp}.authorizedTTL`, errs);
    const unauthorizedTTLMs = durationMs(wh['unauthorizedTTL'], `${wp}.unauthorizedTTL`, errs);
    const sarVersion = String(wh['subjectAccessReviewVersion'] ?? '');
    if (!sarVersion) errs.push({ type: 'FieldValueRequired', field: `${wp}.subjectAccessReviewVersion`, detail: '' });
    else if (sarVersion !== 'v1' && sarVersion !== 'v1beta1') errs.push({ type: 'FieldValueNotSupported', field: `${wp}.subjectAccessReviewVersion`, value: sarVersion, detail: 'supported values: "v1", "v1beta1"' });
    const mcVersion = String(wh['matchConditionSubjectAccessReviewVersion'] ?? '');
    if (!mcVersion) errs.push({ type: 'FieldValueRequired', field: `${wp}.matchConditionSubjectAccessReviewVersion`, detail: '' });
    else if (mcVersion !== 'v1') errs.push({ type: 'FieldValueNotSupported', field: `${wp}.matchConditionSubjectAccessReviewVersion`, value: mcVersion, detail: 'supported values: "v1"' });
    const failurePolicy = String(wh['failurePolicy'] ?? '');
    if (!failurePolicy) errs.push({ type: 'FieldValueRequired', field: `${wp}.failurePolicy`, detail: '' });
    else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') errs.push({ type: 'FieldValueNotSupported', field: `${wp}.failurePolicy`, value: failurePolicy, detail: 'supported values: "Deny", "NoOpinion"' });
    const ci = isObj(wh['connectionInfo']) ? wh['connectionInfo'] : {};
    const ciType = String(ci['type'] ?? '');
    const kubeConfigFile = typeof ci['kubeConfigFile'] === 'string' ? ci['kubeConfigFile'] : '';
    if (!ciType) errs.push({ type: 'FieldValueRequired', field: `${wp}.connectionInfo.type`, detail: '' });
    else if (ciType !== 'KubeConfigFile') errs.push({ type: 'FieldValueNotSupported', field: `${wp}.connectionInfo.type`, value: ciType, detail: 'supported values: "KubeConfigFile"' });
    else if (!kubeConfigFile) errs.push({ type: 'FieldValueRequired', field: `${wp}.connectionInfo.kubeConfigFile`, detail: '' });
    const conditions = Array.isArray(wh['matchConditions']) ? wh['matchConditions'] : [];
    const expressions: string[] = [];
    if (conditions.length > maxMatchConditions) {
      errs.push({ type: 'FieldValueTooMany', field: `${wp}.matchConditions`, valueText: String(conditions.length), detail: `must have at most ${maxMatchConditions} items` });
    }
    conditions.forEach((c, j) => {
      const e = isObj(c) && typeof c['expression'] === 'string' ? c['expression'].trim() : '';
      const field = `${wp}.matchConditions[${j}].expression`;
      if (!e) errs.push({ type: 'FieldValueRequired', field, detail: '' });
      else if (expressions.includes(e)) errs.push({ type: 'FieldValueDuplicate', field, value: e });
      expressions.push(e);
    });
    for (const { index, message } of compileMatchConditions(expressions.filter(Boolean)).errors) {
      errs.push({ type: 'FieldValueInvalid', field: `${wp}.matchConditions[${index}].expression`, value: expressions[index], detail: message });
    }
    types.push('Webhook');
    builders.push(() => {
      const options: WebhookOptions = {
        name,
        transport: deps.transportFor(kubeConfigFile),
        subjectAccessReviewVersion: sarVersion as 'v1' | 'v1beta1',
        failurePolicy: failurePolicy as 'NoOpinion' | 'Deny',
        timeoutMs: timeoutMs ?? maxTimeoutMs,
        authorizedTTLMs,
        unauthorizedTTLMs,
        cacheAuthorizedRequests: wh['cacheAuthorizedRequests'] !== false,
        cacheUnauthorizedRequests: wh['cacheUnauthorizedRequests'] !== false,
        matchConditions: expressions,
      };
      const w = webhookAuthorizer(options);
      webhooks.set(name, w);
      return w;
    });
  });
  if (errs.length) throw new Error(fieldErrorsAggregate(errs));
  return {
    types,
    webhooks,
    factory: (d) => unionAuthorizer([privilegedGroupsAuthorizer(), ...builders.map((b) => b(d))]),
  };
}
