// The `request` variable of authorization webhook match conditions: a
// SubjectAccessReviewSpec with every user and string attribute present
// (even empty ones), and selectors only when the server exposes them.

import { fromJson, type CelValue } from '../../common/values';

interface SelectorRequirementSpec {
  key: string;
  operator: string;
  values?: string[];
}
interface SelectorAttributesSpec {
  rawSelector?: string;
  requirements?: SelectorRequirementSpec[];
}

/** authorization.k8s.io/v1 SubjectAccessReviewSpec (the fields CEL sees). */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    version?: string;
    resource?: string;
    subresource?: string;
    name?: string;
    fieldSelector?: SelectorAttributesSpec;
    labelSelector?: SelectorAttributesSpec;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

function selector(s: SelectorAttributesSpec | undefined): Record<string, unknown> | undefined {
  if (!s) return undefined;
  // a raw selector wins over requirements, as the API server's conversion does
  if (s.rawSelector) return { rawSelector: s.rawSelector };
  if (s.requirements?.length) return { requirements: s.requirements.map((r) => ({ key: r.key, operator: r.operator, values: r.values ?? [] })) };
  return undefined;
}

export function subjectAccessReviewRequest(spec: SubjectAccessReviewSpec, opts: { fieldSelector?: boolean; labelSelector?: boolean } = {}): CelValue {
  const out: Record<string, unknown> = { user: spec.user ?? '', groups: spec.groups ?? [], uid: spec.uid ?? '', extra: spec.extra ?? {} };
  const ra = spec.resourceAttributes;
  if (ra) {
    const r: Record<string, unknown> = {
      namespace: ra.namespace ?? '',
      verb: ra.verb ?? '',
      group: ra.group ?? '',
      version: ra.version ?? '',
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      name: ra.name ?? '',
    };
    const fs = opts.fieldSelector === false ? undefined : selector(ra.fieldSelector);
    if (fs) r.fieldSelector = fs;
    const ls = opts.labelSelector === false ? undefined : selector(ra.labelSelector);
    if (ls) r.labelSelector = ls;
    out.resourceAttributes = r;
  }
  if (spec.nonResourceAttributes) out.nonResourceAttributes = { verb: spec.nonResourceAttributes.verb ?? '', path: spec.nonResourceAttributes.path ?? '' };
  return fromJson(out);
}
