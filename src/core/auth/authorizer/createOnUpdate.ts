/**
 * An update or patch that creates its object (apply of a missing object, PUT
 * where the strategy allows create on update) needs the `create` verb as well:
 * the request filter authorized only `update` or `patch`. kube-apiserver checks
 * it the same way, inside the create validation (handlers/rest.go withAuthorization),
 * so the 403 names the object and carries only the authorizer's reason.
 */
import { newForbidden } from '../../errors';
import type { RequestInfo } from '../../http/requestInfo';
import type { ValidatingAdmission } from '../../registry/generic/store';
import type { UserInfo } from '../user';
import { attributesFor } from './attributes';
import type { Authorizer } from './types';

export function withCreateAuthorization(admission: ValidatingAdmission, authorizer: Authorizer, user: UserInfo, info: RequestInfo, url: URL): ValidatingAdmission {
  let decided: Promise<{ allowed: boolean; reason: string }> | undefined;
  return {
    async validate(review) {
      if (review.operation === 'CREATE') {
        // A retried write asks once, as kube's sync.Once does.
        decided ??= Promise.resolve(authorizer.authorize({ ...attributesFor(user, info, url), verb: 'create' })).then((r) => ({ allowed: r.decision === 'Allow', reason: r.reason }));
        const { allowed, reason } = await decided;
        if (!allowed) throw newForbidden({ group: info.apiGroup, resource: info.resource }, info.name, reason);
      }
      return admission.validate(review);
    },
  };
}
