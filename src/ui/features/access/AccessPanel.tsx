/**
 * Access settings of this tab's API server: the static token table (as
 * --token-auth-file), the authorization modes (as --authorization-mode), and
 * which token the workbench itself sends, and how many simulated nodes run pods. Applying reinstalls the service
 * worker with the new settings and reloads the page; stored objects stay.
 */
import { useState } from 'react';
import { FEATURE_GATES_KEY, readAccessSettings, SIMULATED_NODES_KEY, tokenUsers, writeAccessSettings, type AccessSettings } from './settings';

const MODES = ['', 'RBAC', 'RBAC,AlwaysAllow', 'AlwaysAllow', 'AlwaysDeny'];
const EXAMPLE = 'admin-token,admin,1,system:masters\nalice-token,alice,2,"developers"\n';

export function AccessPanel({ reload = () => location.reload() }: { reload?: () => void }) {
  const saved = readAccessSettings();
  const [draft, setDraft] = useState<AccessSettings>(saved);
  const savedNodes = localStorage.getItem(SIMULATED_NODES_KEY) ?? '';
  const [nodes, setNodes] = useState(savedNodes);
  const users = tokenUsers(draft.tokens);
  // A scenario may have set a mode list this menu does not offer.
  const modes = MODES.includes(saved.authorizationMode) ? MODES : [...MODES, saved.authorizationMode];
  const gates = localStorage.getItem(FEATURE_GATES_KEY);
  const changed = draft.tokens !== saved.tokens || draft.authorizationMode !== saved.authorizationMode || draft.token !== saved.token || nodes !== savedNodes;
  const apply = () => {
    writeAccessSettings(draft);
    if (nodes) localStorage.setItem(SIMULATED_NODES_KEY, nodes);
    else localStorage.removeItem(SIMULATED_NODES_KEY);
    reload();
  };
  return (
    <section className="panel access-panel" aria-labelledby="access-heading" data-testid="access-panel">
      <h2 id="access-heading">Access: who you are and what the server checks</h2>
      <label htmlFor="access-tokens">Token table (CSV: token,user,uid,&quot;group1,group2&quot;, as --token-auth-file)</label>
      <textarea
        id="access-tokens"
        data-testid="access-tokens"
        rows={6}
        spellCheck={false}
        value={draft.tokens}
        placeholder={EXAMPLE}
        onChange={(e) => setDraft({ ...draft, tokens: e.target.value })}
      />
      <div className="toolbar">
        <label htmlFor="access-mode">Authorization mode</label>
        <select id="access-mode" data-testid="access-mode" value={draft.authorizationMode} onChange={(e) => setDraft({ ...draft, authorizationMode: e.target.value })}>
          {modes.map((m) => (
            <option key={m} value={m}>
              {m || 'AlwaysAllow (default)'}
            </option>
          ))}
        </select>
        <label htmlFor="access-as">Act as</label>
        <select id="access-as" data-testid="access-as" value={draft.token} onChange={(e) => setDraft({ ...draft, token: e.target.value })}>
          <option value="">system:anonymous (no token)</option>
          {users.map((u) => (
            <option key={u.token} value={u.token}>
              {u.user}
            </option>
          ))}
        </select>
        <label htmlFor="access-nodes" title="As --simulated-nodes: nodes with kubelets and a scheduler, so pods are bound and run">
          Simulated nodes
        </label>
        <select id="access-nodes" data-testid="access-nodes" value={nodes} onChange={(e) => setNodes(e.target.value)}>
          {['', '1', '2', '3', '5'].concat(['', '1', '2', '3', '5'].includes(savedNodes) ? [] : [savedNodes]).map((n) => (
            <option key={n} value={n}>
              {n || 'none (pods stay Pending)'}
            </option>
          ))}
        </select>
        <button type="button" data-testid="access-apply" disabled={!changed} onClick={apply}>
          Apply and reload
        </button>
      </div>
      {gates && (
        <p data-testid="access-gates">
          Feature gates (set by a scenario, as --feature-gates): <code>{gates}</code>
        </p>
      )}
      <p className="muted">
        With simulated nodes a scheduler binds pods to <code>node-1</code>... and their kubelets run them: Deployments roll out, Job pods
        complete, and the <code>kubesim.io/run-seconds</code> and <code>kubesim.io/exit-code</code> pod annotations script crashes. Under RBAC
        the default roles exist from the start; act as a member of system:masters to write roles and bindings, then switch users to see
        their 403s. The RBAC lab and Trace panel explain each decision.
      </p>
    </section>
  );
}
