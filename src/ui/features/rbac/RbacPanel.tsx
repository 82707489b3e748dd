/**
 * The RBAC lab: pick a subject, see a verb x resource matrix for the
 * selected namespace, ask who can do something, and for any cell see the
 * binding, role and rule that grant it (or that nothing does) beside the
 * server's own SubjectAccessReview answer.
 */
import { useMutation, useQueries } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useApiClient, type KubeList, type KubeObject, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { useWorkbench } from '../../store';
import { describeRule, describeSubject, grantsFor, whoCan, type Policy, type Subject } from './policy';

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

interface Cell {
  verb: string;
  kind: ResourceKind;
}

interface AccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

function reviewIdentity(subject: Subject): { user?: string; groups?: string[] } {
  if (subject.kind === 'User') return { user: subject.name, groups: ['system:authenticated'] };
  if (subject.kind === 'Group') return { groups: [subject.name] };
  const ns = subject.namespace ?? 'default';
  return { user: `system:serviceaccount:${ns}:${subject.name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] };
}

export function RbacPanel({ kinds }: { kinds: readonly ResourceKind[] }) {
  const client = useApiClient();
  const namespace = useWorkbench((s) => s.selectedNamespace) ?? 'default';
  const [subject, setSubject] = useState<Subject>({ kind: 'User', name: 'alice' });
  const [cell, setCell] = useState<Cell | null>(null);
  const [askVerb, setAskVerb] = useState('list');
  const [askResource, setAskResource] = useState('/v1/configmaps');
  const lists = useQueries({
    queries: [`${RBAC}/clusterroles`, `${RBAC}/clusterrolebindings`, `${RBAC}/namespaces/${namespace}/roles`, `${RBAC}/namespaces/${namespace}/rolebindings`].map((path) => ({
      queryKey: ['kubesim', 'rbac', path],
      queryFn: ({ signal }: { signal: AbortSignal }) => client.get<KubeList>(path, { signal }),
    })),
  });
  const failed = lists.find((l) => l.error)?.error;
  const policy: Policy | undefined = useMemo(() => {
    if (!lists.every((l) => l.data)) return undefined;
    const [clusterRoles, clusterRoleBindings, roles, roleBindings] = lists.map((l) => l.data!.items as never[]);
    return { clusterRoles: clusterRoles!, clusterRoleBindings: clusterRoleBindings!, roles: roles!, roleBindings: roleBindings! };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [lists.map((l) => l.dataUpdatedAt).join()]);
  const resources = kinds.filter((k) => k.namespaced && k.verbs.includes('list'));
  const review = useMutation({
    mutationFn: async (c: Cell) => {
      const body = {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { ...reviewIdentity(subject), resourceAttributes: { namespace, verb: c.verb, group: c.kind.group, version: c.kind.version, resource: c.kind.resource } },
      };
      const { object } = await client.write<KubeObject & { status?: AccessReviewStatus }>('create', '/apis/authorization.k8s.io/v1/subjectaccessreviews', body as unknown as KubeObject);
      return object.status;
    },
  });
  const asked = resources.find((k) => `${k.group}/${k.version}/${k.resource}` === askResource);
  const selectCell = (c: Cell) => {
    setCell(c);
    review.mutate(c);
  };
  const grants = policy && cell ? grantsFor(policy, subject, cell.verb, cell.kind.group, cell.kind.resource) : [];

  return (
    <section className="panel rbac-panel" aria-labelledby="rbac-heading" data-testid="rbac-panel">
      <h2 id="rbac-heading">RBAC lab — namespace {namespace}</h2>
      <div className="write-options">
        <label>
          Subject{' '}
          <select value={subject.kind} onChange={(e) => setSubject({ ...subject, kind: e.target.value as Subject['kind'] })} data-testid="rbac-subject-kind">
            <option>User</option>
            <option>Group</option>
            <option>ServiceAccount</option>
          </select>
        </label>
        <label>
          name <input value={subject.name} onChange={(e) => setSubject({ ...subject, name: e.target.value })} data-testid="rbac-subject-name" size={16} />
        </label>
        {subject.kind === 'ServiceAccount' && (
          <label>
            namespace <input value={subject.namespace ?? 'default'} onChange={(e) => setSubject({ ...subject, namespace: e.target.value })} size={12} />
          </label>
        )}
      </div>
      {failed && <StatusError error={failed} testId="rbac-error" />}
      {policy && (
        <div className="rbac-matrix-wrap">
          <table className="rbac-matrix" aria-label={`What ${describeSubject(subject)} may do in ${namespace}`} data-testid="rbac-matrix">
            <thead>
              <tr>
                <th scope="col">Resource</th>
                {VERBS.map((v) => (
                  <th key={v} scope="col">
                    {v}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {resources.map((k) => (
                <tr key={`${k.group}/${k.resource}`}>
                  <th scope="row">{k.group ? `${k.resource}.${k.group}` : k.resource}</th>
                  {VERBS.map((verb) => {
                    const allowed = grantsFor(policy, subject, verb, k.group, k.resource).length > 0;
                    return (
                      <td key={verb}>
                        <button
                          type="button"
                          className={`rbac-cell ${allowed ? 'allowed' : 'denied'}`}
                          aria-label={`${verb} ${k.resource}: ${allowed ? 'allowed' : 'denied'}`}
                          onClick={() => selectCell({ verb, kind: k })}
                          data-testid="rbac-cell"
                          data-verb={verb}
                          data-resource={k.resource}
                          data-allowed={allowed}
                        >
                          {allowed ? '✓' : '·'}
                        </button>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cell && (
        <div className="rbac-explanation" role="region" aria-label="Why" data-testid="rbac-explanation">
          <h3>
            Can {describeSubject(subject)} {cell.verb} {cell.kind.resource} in {namespace}?
          </h3>
          {grants.length > 0 ? (
            <ul>
              {grants.map((g, i) => (
                <li key={i} data-testid="rbac-grant">
                  {g.binding} binds {g.role}; its rule #{g.ruleIndex + 1} allows: {describeRule(g.rule)}
                </li>
              ))}
            </ul>
          ) : (
            <p data-testid="rbac-no-grant">
              No RoleBinding in {namespace} and no ClusterRoleBinding binds {describeSubject(subject)} (or a group it belongs to) to a role with a rule allowing {cell.verb} on{' '}
              {cell.kind.resource}.
            </p>
          )}
          {review.data && (
            <p className="muted" data-testid="rbac-server">
              The server's authorizer (SubjectAccessReview): {review.data.allowed ? 'allowed' : review.data.denied ? 'denied' : 'no opinion (denied)'}
              {review.data.reason ? ` — ${review.data.reason}` : ''}
            </p>
          )}
          {review.error && <StatusError error={review.error} />}
        </div>
      )}
      {policy && (
        <div className="rbac-who" data-testid="rbac-who">
          <h3>Who can</h3>
          <div className="write-options">
            <select value={askVerb} onChange={(e) => setAskVerb(e.target.value)} aria-label="Verb" data-testid="rbac-who-verb">
              {VERBS.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
            <select value={askResource} onChange={(e) => setAskResource(e.target.value)} aria-label="Resource" data-testid="rbac-who-resource">
              {resources.map((k) => (
                <option key={`${k.group}/${k.version}/${k.resource}`} value={`${k.group}/${k.version}/${k.resource}`}>
                  {k.group ? `${k.resource}.${k.group}` : k.resource}
                </option>
              ))}
            </select>
            <span className="muted">in {namespace}</span>
          </div>
          {asked && (
            <ul>
              {whoCan(policy, askVerb, asked.group, asked.resource).map(({ subject: s, grant }) => (
                <li key={`${s.kind}/${s.namespace ?? ''}/${s.name}`} data-testid="rbac-who-subject" data-name={s.name}>
                  {describeSubject(s)} — {grant.binding} ({grant.role})
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
