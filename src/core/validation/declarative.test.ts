/** Declarative validation beside the hand-written one, as the DeclarativeValidation gates set it. */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types';
import { featureGates } from '../features';
import { builtinRegistry } from '../registry';
import { newTestServer, type TestServer } from '../testing/client';
import { withDeclarativeValidation } from './declarative';

const RCS = '/api/v1/namespaces/default/replicationcontrollers';
const badRc = {
  apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' },
  spec: { replicas: -1, selector: { app: 'a' }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
};
const handwrittenOrder = 'ReplicationController "rc" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`]';
const declarativeOrder = 'ReplicationController "rc" is invalid: [spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`, spec.replicas: Invalid value: -1: must be greater than or equal to 0]';

async function mismatches(t: TestServer): Promise<string | undefined> {
  const text = await (await t.request('GET', '/metrics')).text();
  return parsePrometheusTextFormat(text).find((f) => f.name === 'declarative_validation_mismatch_total')?.metrics[0]?.value;
}

describe('declarative validation', () => {
  it('[API-DV-001][API-DV-008][API-DV-004] on by default: both run, the hand-written errors answer, declarative_validation_mismatch_total is exposed', async () => {
    const t = await newTestServer();
    expect(await mismatches(t)).toBe('0');
    const r = await t.json('POST', RCS, { body: badRc });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(handwrittenOrder);
    // The two agree on the covered fields: no mismatch counted.
    expect(await mismatches(t)).toBe('0');
    const ok = await t.json('POST', RCS, { body: { ...badRc, spec: { ...badRc.spec, replicas: 2, template: { ...badRc.spec.template, metadata: { labels: { app: 'a' } } } } } });
    expect(ok.status).toBe(201);
  });

  it('[API-DV-006] with DeclarativeValidationTakeover the declarative errors answer for the fields they cover', async () => {
    const t = await newTestServer({ featureGates: { DeclarativeValidationTakeover: true } });
    const r = await t.json('POST', RCS, { body: badRc });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(declarativeOrder);
    expect(r.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.template.metadata.labels', 'spec.replicas']);
  });

  it('[API-DV-009] DeclarativeValidation=false turns takeover off too', async () => {
    const t = await newTestServer({ featureGates: { DeclarativeValidation: false, DeclarativeValidationTakeover: true } });
    const r = await t.json('POST', RCS, { body: badRc });
    expect(r.body.message).toBe(handwrittenOrder);
  });

  it('[API-DV-008] a difference between the two on a covered field is counted', () => {
    const type = builtinRegistry().resourceFor('', 'v1', 'replicationcontrollers')!;
    let counted = 0;
    // A hand-written validation that misses the replicas check disagrees with the +k8s:minimum=0 marker.
    const lax = withDeclarativeValidation({ validate: () => [] }, type, featureGates(), () => counted++);
    const rc = badRc as unknown as KubeObject;
    const ctx = {} as Parameters<NonNullable<typeof lax.validate>>[1];
    expect(lax.validate!(rc, ctx)).toEqual([]);
    expect(counted).toBe(1);
    const takeover = withDeclarativeValidation({ validate: () => [] }, type, featureGates({ DeclarativeValidationTakeover: true }), () => counted++);
    expect(takeover.validate!(rc, ctx).map((e) => e.field)).toEqual(['spec.replicas']);
    expect(counted).toBe(2);
    const off = withDeclarativeValidation({ validate: () => [] }, type, featureGates({ DeclarativeValidation: false }), () => counted++);
    expect(off.validate!(rc, ctx)).toEqual([]);
    expect(counted).toBe(2);
  });
});
