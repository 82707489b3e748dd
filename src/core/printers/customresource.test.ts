import { describe, expect, it } from 'vitest';
import { evaluateColumnPath, parseColumnPath } from './customresource';
import { tableColumnsFor, toTable } from './table';
import type { CustomResourceColumnDefinition, KubeObject } from './types';

const now = new Date('2025-06-01T12:00:00Z');

const certificate: KubeObject = {
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: { name: 'shop-tls', namespace: 'shop', resourceVersion: '77', creationTimestamp: '2025-05-29T12:00:00Z' },
  spec: { secretName: 'shop-tls', dnsNames: ['shop.example.com', 'www.shop.example.com'], duration: '2160h', replicas: 3, ratio: 0.75, paused: false },
  status: {
    conditions: [
      { type: 'Issuing', status: 'False' },
      { type: 'Ready', status: 'True', message: 'Certificate is up to date and has not expired' },
    ],
    notAfter: '2025-08-27T12:00:00Z',
    renewalTime: '2025-05-31T12:00:00Z',
  },
};

const columns: CustomResourceColumnDefinition[] = [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
  { name: 'Secret', type: 'string', jsonPath: '.spec.secretName' },
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
  { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
  { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
  { name: 'Hosts', type: 'string', jsonPath: '.spec.dnsNames', priority: 1 },
  { name: 'Renewed', type: 'date', jsonPath: '.status.renewalTime' },
  { name: 'Issuer', type: 'string', jsonPath: '.spec.issuerRef.name', description: 'Issuer of the certificate' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const crOptions = { group: 'cert-manager.io', version: 'v1', resource: 'certificates', kind: 'Certificate', now };

describe('custom resource tables', () => {
  it('without printer columns: Name and Age, the age printed on the server', () => {
    const table = toTable([certificate], { ...crOptions, printerColumns: [] });
    expect(table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Age', 'date', '', 0],
    ]);
    expect(table.columnDefinitions[1].description).toMatch(/^CreationTimestamp is a timestamp/);
    expect(table.rows[0].cells).toEqual(['shop-tls', '3d']);
    expect(table.metadata).toEqual({ resourceVersion: '77' });
  });

  it('with printer columns: Name first, then each column with its type, format, description and priority', () => {
    expect(tableColumnsFor('cert-manager.io', 'certificates', columns).map((c) => [c.name, c.type, c.priority, c.description])).toEqual([
      ['Name', 'string', 0, expect.stringMatching(/^Name must be unique/)],
      ['Ready', 'string', 0, ''],
      ['Secret', 'string', 0, ''],
      ['Replicas', 'integer', 0, ''],
      ['Ratio', 'number', 0, ''],
      ['Paused', 'boolean', 0, ''],
      ['Hosts', 'string', 1, ''],
      ['Renewed', 'date', 0, ''],
      ['Issuer', 'string', 0, 'Issuer of the certificate'],
      ['Age', 'date', 0, ''],
    ]);
  });

  it('fills cells from the JSONPaths, typed per column; missing values are null', () => {
    const table = toTable([certificate], { ...crOptions, printerColumns: columns, includeObject: 'None' });
    expect(table.rows[0].cells).toEqual(['shop-tls', 'True', 'shop-tls', 3, 0.75, false, '[shop.example.com www.shop.example.com]', '24h', null, '3d']);
  });

  it('type mismatches give null, bad dates <invalid>', () => {
    const odd: KubeObject = { ...certificate, spec: { replicas: 'three', paused: 'no' }, status: { renewalTime: 'soon' } };
    const table = toTable([odd], {
      ...crOptions,
      printerColumns: [
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
        { name: 'Renewed', type: 'date', jsonPath: '.status.renewalTime' },
      ],
    });
    expect(table.rows[0].cells).toEqual(['shop-tls', null, null, '<invalid>']);
  });

  it.each([
    ['.spec.dnsNames[0]', ['shop.example.com']],
    ['.spec.dnsNames[-1]', ['www.shop.example.com']],
    ['.spec.dnsNames[*]', ['shop.example.com', 'www.shop.example.com']],
    [".metadata['name']", ['shop-tls']],
    ['.status.conditions[?(@.status!="True")].type', ['Issuing']],
    ['.status.conditions[?(@.message)].type', ['Ready']],
    ['{.spec.secretName}', ['shop-tls']],
    ['.spec.missing.deeper', []],
  ])('JSONPath %s', (path, expected) => {
    const steps = parseColumnPath(path);
    expect(steps).toBeDefined();
    expect(evaluateColumnPath(steps!, certificate)).toEqual(expected);
  });

  it('rejects JSONPath it cannot evaluate', () => {
    expect(parseColumnPath('spec.name')).toBeUndefined();
    expect(parseColumnPath('.spec[')).toBeUndefined();
  });
});
