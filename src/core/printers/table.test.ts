import { describe, expect, it } from 'vitest';
import { printedResources } from './registry';
import { tableColumnsFor, toTable } from './table';
import type { KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');

const configMap: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'app-config',
    namespace: 'default',
    uid: '7b0c2f0e-1c1d-4c55-9a55-4b1f0b2c1e11',
    resourceVersion: '1205',
    creationTimestamp: '2025-06-01T11:00:00Z',
    labels: { app: 'web' },
    managedFields: [{ manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2025-06-01T11:00:00Z' }],
  },
  data: { color: 'blue', size: 'L' },
};

const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com', resourceVersion: '300', creationTimestamp: '2025-05-30T08:15:30Z' },
  spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [] },
};

const crdOptions = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', now };
const cmOptions = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', now };

describe('Table shape', () => {
  it('[API-TABLE-002][API-TABLE-003] is kind Table in meta.k8s.io/v1, fields in kube order', () => {
    const table = toTable([configMap], { ...cmOptions, listMeta: { resourceVersion: '1300' } });
    expect(table.kind).toBe('Table');
    expect(table.apiVersion).toBe('meta.k8s.io/v1');
    expect(Object.keys(table)).toEqual(['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
    expect(JSON.parse(JSON.stringify(table))).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '1300' },
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name', description: expect.stringMatching(/^Name must be unique within a namespace/), priority: 0 },
        { name: 'Data', type: 'string', format: '', description: expect.stringMatching(/^Data contains the configuration data/), priority: 0 },
        { name: 'Age', type: 'string', format: '', description: expect.stringMatching(/^CreationTimestamp is a timestamp/), priority: 0 },
      ],
      rows: [
        {
          cells: ['app-config', 2, '60m'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: configMap.metadata },
        },
      ],
    });
  });

  it('[API-TABLE-004] every column definition of every printer has name, type, format, description and priority', () => {
    const resources = [...printedResources(), { group: 'rbac.authorization.k8s.io', resource: 'roles' }];
    for (const { group, resource } of resources) {
      for (const c of tableColumnsFor(group, resource)) {
        expect(Object.keys(c), `${group}/${resource}`).toEqual(['name', 'type', 'format', 'description', 'priority']);
        expect(c.name).not.toBe('');
        expect(['string', 'integer', 'number', 'boolean', 'date']).toContain(c.type);
      }
    }
  });

  it('prints one cell per column for every printer, even for a bare object', () => {
    for (const { group, resource } of printedResources()) {
      const table = toTable([{ apiVersion: 'v1', kind: 'X', metadata: { name: 'x' } }], { group, version: 'v1', resource, kind: 'X', now });
      // Upstream's IPAddress printer declares two columns but prints the age as a third cell.
      const extra = resource === 'ipaddresses' ? 1 : 0;
      expect(table.rows[0].cells, `${group}/${resource}`).toHaveLength(table.columnDefinitions.length + extra);
    }
  });

  it('takes column descriptions from the API field documentation', () => {
    const byName = Object.fromEntries(tableColumnsFor('', 'services').map((c) => [c.name, c.description]));
    expect(byName['Cluster-IP']).toMatch(/^clusterIP is the IP address of the service/);
    expect(byName.Selector).toMatch(/^Route service traffic to pods with label keys and values matching this selector/);
  });
});

describe('default table', () => {
  it('[API-TABLE-005][API-TABLE-006][API-TABLE-007] has exactly Name (string) and Created At (date) for kinds without a printer', () => {
    const table = toTable([crd], { ...crdOptions, listMeta: { resourceVersion: '301' } });
    expect(table.columnDefinitions).toEqual([
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description:
          'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
        priority: 0,
      },
      {
        name: 'Created At',
        type: 'date',
        format: '',
        description: expect.stringMatching(/^CreationTimestamp is a timestamp representing the server time/),
        priority: 0,
      },
    ]);
    expect(table.rows.map((r) => r.cells)).toEqual([['widgets.example.com', '2025-05-30T08:15:30Z']]);
  });

  it.each([
    ['roles', 'rbac.authorization.k8s.io'],
    ['clusterroles', 'rbac.authorization.k8s.io'],
    ['limitranges', ''],
    ['customresourcedefinitions', 'apiextensions.k8s.io'],
  ])('serves %s with the default columns', (resource, group) => {
    expect(tableColumnsFor(group, resource).map((c) => c.name)).toEqual(['Name', 'Created At']);
  });

  it('[API-TABLE-007] prints Created At in UTC at second precision, and Go zero time when unset', () => {
    const objs: KubeObject[] = [
      { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'offset', creationTimestamp: '2025-06-01T14:30:05+02:00' } },
      { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'unset' } },
    ];
    const table = toTable(objs, { group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', now, listMeta: { resourceVersion: '9' } });
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['offset', '2025-06-01T12:30:05Z'],
      ['unset', '0001-01-01T00:00:00Z'],
    ]);
  });
});

describe('row objects (includeObject)', () => {
  it('defaults to PartialObjectMetadata carrying the whole ObjectMeta', () => {
    const [row] = toTable([configMap], cmOptions).rows;
    expect(row.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: configMap.metadata });
  });

  it('Metadata is the same as the default', () => {
    expect(toTable([configMap], { ...cmOptions, includeObject: 'Metadata' })).toEqual(toTable([configMap], cmOptions));
  });

  it('Object embeds the whole object, with apiVersion and kind filled in', () => {
    const { apiVersion: _a, kind: _k, ...bare } = configMap;
    const [full] = toTable([configMap], { ...cmOptions, includeObject: 'Object' }).rows;
    expect(full.object).toEqual(configMap);
    const [filled] = toTable([bare as KubeObject], { ...cmOptions, includeObject: 'Object' }).rows;
    expect(filled.object).toEqual(configMap);
    const [grouped] = toTable([{ ...crd, apiVersion: '', kind: '' }], { ...crdOptions, includeObject: 'Object' }).rows;
    expect(grouped.object).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
  });

  it('None leaves the row object null', () => {
    const [row] = toTable([configMap], { ...cmOptions, includeObject: 'None' }).rows;
    expect(row.object).toBeNull();
    expect(row.cells).toEqual(['app-config', 2, '60m']);
  });
});

describe('table metadata', () => {
  it('copies the list metadata: resourceVersion, continue and remainingItemCount', () => {
    const table = toTable([configMap], { ...cmOptions, listMeta: { resourceVersion: '1300', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', remainingItemCount: 0 } });
    expect(table.metadata).toEqual({ resourceVersion: '1300', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', remainingItemCount: 0 });
  });

  it('omits an empty continue token', () => {
    expect(toTable([], { ...cmOptions, listMeta: { resourceVersion: '1300', continue: '' } }).metadata).toEqual({ resourceVersion: '1300' });
  });

  it("a single object's Table carries that object's resourceVersion", () => {
    expect(toTable([configMap], cmOptions).metadata).toEqual({ resourceVersion: '1205' });
  });

  it('an empty list has no rows', () => {
    const table = toTable([], { ...cmOptions, listMeta: { resourceVersion: '1300' } });
    expect(table.rows).toEqual([]);
    expect(table.columnDefinitions).toHaveLength(3);
  });

  it('noHeaders leaves out the column definitions (watch events after the first)', () => {
    const table = toTable([configMap], { ...cmOptions, noHeaders: true });
    expect(table.columnDefinitions).toEqual([]);
    expect(table.rows[0].cells).toEqual(['app-config', 2, '60m']);
  });

  it('tableColumnsFor returns the same definitions toTable sends, as copies', () => {
    const columns = tableColumnsFor('', 'pods');
    expect(columns).toEqual(toTable([], { group: '', version: 'v1', resource: 'pods', kind: 'Pod', now }).columnDefinitions);
    columns[0].name = 'changed';
    expect(tableColumnsFor('', 'pods')[0].name).toBe('Name');
  });
});
