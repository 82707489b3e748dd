import { describe, expect, it } from 'vitest';
import { COMMON_KINDS } from '../../api';
import { describeCreated, parseManifest, resolveTarget } from './manifest';

describe('parseManifest', () => {
  it('parses one object', () => {
    expect(parseManifest('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: "1"\n')).toEqual({
      ok: true,
      value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: '1' } },
    });
  });

  it('accepts a leading document marker', () => {
    expect(parseManifest('---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n').ok).toBe(true);
  });

  const failures: [string, string, string][] = [
    ['empty text', '  \n', 'the manifest is empty'],
    ['two documents', 'apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n', 'the manifest holds 2 documents; create one object at a time'],
    ['a list, not a mapping', '- a\n- b\n', 'the manifest must be a YAML mapping (an object)'],
    ['no apiVersion', 'kind: ConfigMap\n', "Object 'apiVersion' is missing"],
    ['no kind', 'apiVersion: v1\n', "Object 'Kind' is missing"],
  ];
  it.each(failures)('%s', (_name, text, message) => {
    expect(parseManifest(text)).toEqual({ ok: false, message });
  });

  it('reports YAML syntax errors', () => {
    const result = parseManifest('apiVersion: v1\nkind: [ConfigMap\n');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^error parsing YAML: /);
  });
});

describe('resolveTarget', () => {
  it('posts a namespaced object to its own namespace', () => {
    const result = resolveTarget({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'team' } }, COMMON_KINDS, 'default');
    expect(result).toMatchObject({ ok: true, value: { namespace: 'team', path: '/api/v1/namespaces/team/configmaps' } });
  });

  it('falls back to the selected namespace', () => {
    const result = resolveTarget({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }, COMMON_KINDS, 'default');
    expect(result).toMatchObject({ ok: true, value: { namespace: 'default', path: '/apis/apps/v1/namespaces/default/deployments' } });
  });

  it('posts cluster-scoped kinds without a namespace', () => {
    const result = resolveTarget({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', namespace: 'ignored' } }, COMMON_KINDS, 'default');
    expect(result).toMatchObject({ ok: true, value: { namespace: undefined, path: '/api/v1/namespaces' } });
  });

  it('reports kinds discovery does not know, in kubectl words', () => {
    expect(resolveTarget({ apiVersion: 'v2', kind: 'ConfigMap' }, COMMON_KINDS, 'default')).toEqual({
      ok: false,
      message: 'no matches for kind "ConfigMap" in version "v2"',
    });
  });
});

describe('describeCreated', () => {
  it('names core and grouped kinds as kubectl does', () => {
    const [cm, deploy] = [COMMON_KINDS.find((k) => k.kind === 'ConfigMap')!, COMMON_KINDS.find((k) => k.kind === 'Deployment')!];
    expect(describeCreated(cm, { metadata: { name: 'a' } })).toBe('configmap/a created');
    expect(describeCreated(deploy, { metadata: { name: 'web' } })).toBe('deployment.apps/web created');
  });
});
