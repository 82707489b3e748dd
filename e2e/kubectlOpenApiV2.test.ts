/**
 * Real kubectl 1.32 against the Node host for kinds that can only be created
 * (the reviews): their /openapi/v3 document has no PATCH route to show that
 * the server validates fields, so kubectl falls back to /openapi/v2 in
 * gnostic protobuf and validates the object itself against its definitions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
});

const ssr = 'apiVersion: authentication.k8s.io/v1\nkind: SelfSubjectReview\n';
const sar = `apiVersion: authorization.k8s.io/v1
kind: SubjectAccessReview
spec:
  user: alice
  groups: [system:authenticated]
  resourceAttributes: {verb: get, resource: pods, namespace: default}
`;
const tokenReview = 'apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: not-a-token\n';

/** The requests kubectl logged at -v=6: "GET http://…/openapi/v2?timeout=32s 200 OK". */
function requests(stderr: string): string[] {
  return [...stderr.matchAll(/round_trippers\.go:\d+\] (GET|POST|PUT|PATCH|DELETE) http:\/\/[^/]+(\S+) (\d+)/g)].map((m) => `${m[1]} ${m[2].replace(/\?.*/, '')} ${m[3]}`);
}

describe('kubectl create -f of create-only kinds, validated against /openapi/v2', () => {
  it('[API-REV-002][API-REV-004] SelfSubjectReview: the v3 document has no PATCH for it, so kubectl reads /openapi/v2 and then posts with fieldValidation=Strict', async () => {
    // -v=7 shows the fallback and each request with its response status.
    const r = await t.kubectl(['create', '-f', '-', '-o', 'yaml', '-v=7'], ssr);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('openapi v3 error...falling back to legacy: Path not found for GVK (authentication.k8s.io/v1, Kind=SelfSubjectReview) in OpenAPI V3 doc');
    const v2 = r.stderr.slice(r.stderr.search(/GET http:\/\/\S+\/openapi\/v2\?timeout=32s/));
    expect(v2).toMatch(/^GET \S+\n(.*\n){0,4}.*Response Status: 200 OK/);
    expect(r.stderr).toMatch(/POST http:\/\/\S+\/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews\?fieldManager=kubectl-create&fieldValidation=Strict\n/);
    expect(r.stdout).toContain('kind: SelfSubjectReview');
    expect(r.stdout).toMatch(/userInfo:\n\s+groups:\n\s+- system:unauthenticated\n\s+username: system:anonymous/);
  });

  it('[API-REV-001] SubjectAccessReview prints the evaluated status', async () => {
    const r = await t.kubectl(['create', '-f', '-', '-o', 'json'], sar);
    expect(r.code, r.stderr).toBe(0);
    const review = JSON.parse(r.stdout);
    expect(review).toMatchObject({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice' } });
    expect(typeof review.status.allowed).toBe('boolean');
  });

  it('TokenReview of a token nobody issued answers unauthenticated', async () => {
    const r = await t.kubectl(['create', '-f', '-', '-o', 'json'], tokenReview);
    expect(r.code, r.stderr).toBe(0);
    const review = JSON.parse(r.stdout);
    expect(review).toMatchObject({ kind: 'TokenReview', spec: { token: 'not-a-token' } });
    expect(review.status.authenticated).toBeFalsy();
  });

  it('SelfSubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview pass validation too', async () => {
    const manifests = `apiVersion: authorization.k8s.io/v1
kind: SelfSubjectAccessReview
spec:
  resourceAttributes: {verb: list, resource: pods, namespace: default}
---
apiVersion: authorization.k8s.io/v1
kind: LocalSubjectAccessReview
metadata: {namespace: default}
spec:
  user: bob
  resourceAttributes: {verb: list, resource: pods, namespace: default}
---
apiVersion: authorization.k8s.io/v1
kind: SelfSubjectRulesReview
spec: {namespace: default}
`;
    const r = await t.kubectl(['create', '-f', '-', '-o', 'name'], manifests);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'selfsubjectaccessreview.authorization.k8s.io/<unknown>',
      'localsubjectaccessreview.authorization.k8s.io/<unknown>',
      'selfsubjectrulesreview.authorization.k8s.io/<unknown>',
    ]);
  });

  it('[API-FV-021][API-FV-018][API-FV-019] an unknown field is kubectl\'s own validation error, and nothing is posted', async () => {
    for (const flags of [[], ['--validate=strict'], ['--validate=true']]) {
      const r = await t.kubectl(['create', '-f', '-', '-v=6', ...flags], `${ssr}foo: bar\n`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'error: error validating "STDIN": error validating data: ValidationError(SelfSubjectReview): unknown field "foo" in io.k8s.api.authentication.v1.SelfSubjectReview; if you choose to ignore these errors, turn validation off with --validate=false',
      );
      expect(requests(r.stderr).filter((q) => q.startsWith('POST'))).toEqual([]);
    }
    const nested = await t.kubectl(['create', '-f', '-'], sar.replace('namespace: default}', 'namespace: default, bogus: 1}'));
    expect(nested.code).toBe(1);
    expect(nested.stderr).toContain('ValidationError(SubjectAccessReview.spec.resourceAttributes): unknown field "bogus" in io.k8s.api.authorization.v1.ResourceAttributes');
  });

  it('a missing required field is reported from the definition\'s required list', async () => {
    const r = await t.kubectl(['create', '-f', '-'], 'apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error validating data: ValidationError(SubjectAccessReview): missing required field "spec" in io.k8s.api.authorization.v1.SubjectAccessReview');
  });

  it('[API-FV-020] --validate=false skips the OpenAPI documents and the server drops the unknown field', async () => {
    const r = await t.kubectl(['create', '-f', '-', '-o', 'json', '-v=6', '--validate=false'], `${ssr}foo: bar\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(requests(r.stderr).filter((q) => q.includes('/openapi/'))).toEqual([]);
    expect(r.stderr).toContain('fieldValidation=Ignore');
    expect(JSON.parse(r.stdout).foo).toBeUndefined();
  });

  it('--validate=warn cannot warn for a kind the server does not say it validates, and creates it', async () => {
    const r = await t.kubectl(['create', '-f', '-', '-o', 'name', '--validate=warn'], `${ssr}foo: bar\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('cannot perform warn validation if server-side field validation is unsupported, skipping validation');
  });
});

describe('custom resources in /openapi/v2', () => {
  // Schema features v2 cannot say (nullable, anyOf, arrays that keep unknown fields): kubectl parses every
  // definition of the document before it validates anything, so one it cannot read would break them all.
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size, note]
            properties:
              size: {type: integer, minimum: 1}
              note: {type: string, nullable: true}
              port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
              raw: {type: array, x-kubernetes-preserve-unknown-fields: true, items: {type: string}}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

  it('a CRD with v3-only schema features is pruned so kubectl still reads the whole document', async () => {
    const created = await t.kubectl(['create', '-f', '-'], crd);
    expect(created.code, created.stderr).toBe(0);
    const established = await t.kubectl(['wait', '--for=condition=Established', 'crd/gadgets.example.com', '--timeout=30s']);
    expect(established.code, established.stderr).toBe(0);
    const raw = JSON.parse((await t.kubectl(['get', '--raw', '/openapi/v2'])).stdout);
    expect(raw.definitions['com.example.v1.Gadget'].properties.spec.properties.raw).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    const ok = await t.kubectl(['create', '-f', '-', '-o', 'name'], ssr);
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await t.kubectl(['create', '-f', '-'], `${ssr}foo: bar\n`);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('ValidationError(SelfSubjectReview): unknown field "foo"');
    // The custom kind has a PATCH route: the server validates it (Strict), as against a cluster.
    const gadget = await t.kubectl(['create', '-f', '-', '-v=6'], 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {size: 2, note: null, bogus: 1}\n');
    expect(gadget.code).toBe(1);
    expect(requests(gadget.stderr).filter((p) => p.includes('/openapi/v2'))).toEqual([]);
    expect(gadget.stderr).toContain('unknown field "spec.bogus"');
  });
});

describe('kinds with a PATCH route still use /openapi/v3 only', () => {
  it('kubectl explain reads /openapi/v3, never /openapi/v2', async () => {
    const r = await t.kubectl(['explain', 'pods.spec.containers', '-v=6']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('KIND:       Pod');
    expect(r.stdout).toContain('FIELD: containers <[]Container>');
    const paths = requests(r.stderr);
    expect(paths).toEqual(expect.arrayContaining(['GET /openapi/v3 200', 'GET /openapi/v3/api/v1 200']));
    expect(paths.filter((p) => p.includes('/openapi/v2'))).toEqual([]);
  });

  it('kubectl create -f of a ConfigMap with an unknown field is rejected by the server, not by /openapi/v2', async () => {
    const r = await t.kubectl(['create', '-f', '-', '-v=6'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v2-check}\nbogus: 1\n');
    expect(r.code).toBe(1);
    expect(requests(r.stderr).filter((p) => p.includes('/openapi/v2'))).toEqual([]);
    expect(r.stderr).toContain('Error from server (BadRequest)');
    expect(r.stderr).toContain('unknown field "bogus"');
  });

  it('kubectl get --raw /openapi/v2 reads the JSON form', async () => {
    const r = await t.kubectl(['get', '--raw', '/openapi/v2']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.swagger).toBe('2.0');
    expect(doc.definitions['io.k8s.api.authentication.v1.SelfSubjectReview']['x-kubernetes-group-version-kind']).toEqual([{ group: 'authentication.k8s.io', kind: 'SelfSubjectReview', version: 'v1' }]);
  });
});
