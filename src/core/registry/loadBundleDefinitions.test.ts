/**
 * A registry whose bundle schemas arrive after construction (the service
 * worker loads them on first use) resolves every kind exactly as one built
 * with them, custom resources added meanwhile included.
 */
import { describe, expect, it } from 'vitest';
import { registryBundle } from './generated';
import { ResourceRegistry } from './registry';
import type { GroupVersionKind, ResourceType } from './types';

function everyGvk(registry: ResourceRegistry): GroupVersionKind[] {
  const gvks = registryBundle.resources.map((r) => ({ group: r.group, version: r.version, kind: r.kind }));
  for (const schema of Object.values(registryBundle.definitions)) gvks.push(...(schema['x-kubernetes-group-version-kind'] ?? []));
  gvks.push({ group: 'example.com', version: 'v1', kind: 'Widget' });
  return gvks.filter((g) => registry.definitionNameFor(g) !== undefined || registry.resourceFor(g.group, g.version, 'widgets'));
}

const widget: ResourceType = {
  group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', singularName: 'widget', scope: 'Namespaced',
  verbs: ['get', 'list', 'create'], shortNames: [], categories: [], subresources: [], definition: 'com.example.v1.Widget', custom: true,
} as unknown as ResourceType;

describe('loadBundleDefinitions', () => {
  it('indexes the schemas as a registry built with them does', () => {
    const whole = new ResourceRegistry(registryBundle);
    const late = new ResourceRegistry({ ...registryBundle, definitions: {} });
    expect(late.schemaFor({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBeUndefined();
    // A custom resource added before the schemas arrive keeps its own.
    const crdSchema = { type: 'object', properties: { spec: { type: 'object' } } };
    for (const r of [whole, late]) r.addResource(widget, { 'com.example.v1.Widget': crdSchema });
    late.loadBundleDefinitions(registryBundle.definitions);
    expect(late.definitionNames()).toEqual(whole.definitionNames());
    const gvks = everyGvk(whole);
    expect(gvks.length).toBeGreaterThan(400);
    expect(gvks.map((g) => late.definitionNameFor(g))).toEqual(gvks.map((g) => whole.definitionNameFor(g)));
    expect(late.schemaFor({ group: 'example.com', version: 'v1', kind: 'Widget' })).toBe(crdSchema);
    expect(late.schemaFor({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(registryBundle.definitions['io.k8s.api.apps.v1.Deployment']);
  });
});
