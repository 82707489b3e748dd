/**
 * Response representations other than the object itself: the server-side
 * Table (kubectl get) and PartialObjectMetadata(List) (metadata-only clients).
 */
import type { KubeList, KubeObject } from '../../api/types';
import { invalid, newBadRequest } from '../../errors';
import { newInvalidOptions } from './common';
import { toTable, type IncludeObjectPolicy } from '../../printers';
import type { Representation } from '../negotiation';
import type { RequestScope } from './scope';
import { customResourceInfo } from '../../apiextensions/resources';

function includeObject(url: URL): IncludeObjectPolicy | undefined {
  const v = url.searchParams.get('includeObject');
  if (!v) return undefined;
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw newInvalidOptions('TableOptions', [invalid('includeObject', v, "must be 'Metadata', 'Object', 'None', or empty")]);
}

function partial(obj: KubeObject, version: string) {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

export function tableOptions(scope: RequestScope) {
  return {
    group: scope.type.group,
    version: scope.type.version,
    resource: scope.type.resource,
    kind: scope.type.kind,
    now: scope.clock.now(),
    includeObject: includeObject(scope.url),
    // Custom resources print their CRD version's additionalPrinterColumns (Name and Age when none).
    printerColumns: customResourceInfo(scope.type)?.printerColumns,
  };
}

export function transformObject(obj: KubeObject, rep: Representation, scope: RequestScope): unknown {
  switch (rep.as) {
    case 'object':
      return obj;
    case 'Table': {
      const t = toTable([obj], tableOptions(scope));
      return rep.version === 'v1' ? t : { ...t, apiVersion: 'meta.k8s.io/v1beta1' };
    }
    case 'PartialObjectMetadata':
      return partial(obj, rep.version);
    case 'PartialObjectMetadataList':
      throw newBadRequest('you requested PartialObjectMetadataList, but the requested object is not a list');
  }
}

export function transformList(list: KubeList, rep: Representation, scope: RequestScope): unknown {
  switch (rep.as) {
    case 'object':
      return list;
    case 'Table': {
      const items = list.items.map((i) => ({ ...i, apiVersion: list.apiVersion, kind: scope.type.kind }));
      const t = toTable(items, { ...tableOptions(scope), listMeta: list.metadata });
      return rep.version === 'v1' ? t : { ...t, apiVersion: 'meta.k8s.io/v1beta1' };
    }
    case 'PartialObjectMetadataList':
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${rep.version}`,
        metadata: list.metadata,
        items: list.items.map((i) => partial(i, rep.version)),
      };
    case 'PartialObjectMetadata':
      throw newBadRequest('you requested PartialObjectMetadata, but the requested object is a list');
  }
}
