/**
 * The admission chain of the write handlers (k8s.io/apiserver/pkg/admission):
 * validating admission runs, per write, after the strategy validated the
 * object and before storage, on every write path (create, update, patch,
 * apply, delete, subresources), dry runs included. ValidatingAdmissionPolicy
 * is its plugin; Warn results become Warning headers, Audit results trace entries.
 */
import { addTrace, userFrom } from '../http/request/context';
import type { RequestInfo } from '../http/requestInfo';
import type { AdmissionReview, ValidatingAdmission } from '../registry/generic/store';
import type { ResourceType } from '../registry/types';
import { anonymousUser, allUnauthenticated } from '../auth/user';
import type { AdmissionOutcome } from './attributes';
import type { ValidatingAdmissionPolicyPlugin } from './validatingAdmissionPolicy';
import type { Authorizer } from '../auth/authorizer/types';
import { admitCertificateApproval, admitCertificateSigning } from './certificateApproval';
import { admitCertificateSubjectRestriction } from './certificateSubjectRestriction';

export { createValidatingAdmissionPolicyPlugin, type ValidatingAdmissionPolicyPlugin } from './validatingAdmissionPolicy';
export type { AdmissionAttributes, AdmissionOutcome } from './attributes';
export { createDefaultAdmissionPlugins, type DefaultAdmissionPlugins, type DefaultPluginsOptions } from './defaultPlugins';

/** The options object of each operation; a connect has none. */
const optionsKinds: Partial<Record<AdmissionReview['operation'], string>> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

/** Times one validating admission step (apiserver_admission_step_* and _controller_* duration metrics). */
export type AdmissionObserver = (plugin: string, operation: string, rejected: boolean, seconds: number) => void;

/**
 * The validating plugins in kube's order: CertificateApproval and
 * CertificateSigning (when an authorizer is given), CertificateSubjectRestriction,
 * then ValidatingAdmissionPolicy.
 */
export function requestAdmission(plugin: ValidatingAdmissionPolicyPlugin, request: Request, info: RequestInfo, type: ResourceType, warnings: string[], observe?: AdmissionObserver, authorizer?: Authorizer, subjectRestriction = true): ValidatingAdmission {
  return {
    async validate(review) {
      const obj = review.object ?? review.oldObject;
      if (authorizer && review.operation === 'UPDATE' && (review.subresource === 'approval' || review.subresource === 'status') && type.group === 'certificates.k8s.io') {
        const attrs = { group: type.group, resource: type.resource, subresource: review.subresource, name: info.name || obj?.metadata.name || '', object: review.object, oldObject: review.oldObject, user: userFrom(request) ?? { username: anonymousUser, groups: [allUnauthenticated] } };
        const [name, admit] = review.subresource === 'approval' ? ['CertificateApproval', admitCertificateApproval] as const : ['CertificateSigning', admitCertificateSigning] as const;
        const startedAt = performance.now();
        let denied = true;
        try {
          await admit(authorizer, attrs);
          denied = false;
        } finally {
          observe?.(name, review.operation, denied, (performance.now() - startedAt) / 1000);
        }
      }
      if (subjectRestriction && review.operation === 'CREATE' && type.group === 'certificates.k8s.io') {
        const startedAt = performance.now();
        let denied = true;
        try {
          admitCertificateSubjectRestriction({ group: type.group, resource: type.resource, subresource: review.subresource, name: info.name || obj?.metadata.name || '', object: review.object });
          denied = false;
        } finally {
          observe?.('CertificateSubjectRestriction', review.operation, denied, (performance.now() - startedAt) / 1000);
        }
      }
      const outcome: AdmissionOutcome = { warnings: [], auditAnnotations: {} };
      const started = performance.now();
      let rejected = true;
      try {
        await plugin.validate(
          {
            operation: review.operation,
            resource: { group: type.group, version: type.version, resource: type.resource },
            kind: { group: type.group, version: type.version, kind: review.kind ?? type.kind },
            subresource: review.subresource,
            name: info.name || obj?.metadata.name || '',
            namespace: type.scope === 'Namespaced' ? info.namespace : '',
            namespaced: type.scope === 'Namespaced',
            object: review.object,
            oldObject: review.oldObject,
            dryRun: review.dryRun,
            user: userFrom(request) ?? { username: anonymousUser, groups: [allUnauthenticated] },
            options: optionsKinds[review.operation] ? { kind: optionsKinds[review.operation], apiVersion: 'meta.k8s.io/v1', ...(review.dryRun ? { dryRun: ['All'] } : {}) } : undefined,
          },
          outcome,
        );
        rejected = false;
      } finally {
        observe?.('ValidatingAdmissionPolicy', review.operation, rejected, (performance.now() - started) / 1000);
      }
      // A retried write runs admission again: each warning once.
      for (const w of outcome.warnings) if (!warnings.includes(w)) warnings.push(w);
      if (Object.keys(outcome.auditAnnotations).length) addTrace(request, { stage: 'admission', message: 'audit annotations', details: outcome.auditAnnotations });
    },
  };
}
export { bootstrapSystemPriorityClasses } from './priority';
