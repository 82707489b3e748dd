/** A YAML editor that creates one object, like `kubectl create -f`, and shows the server's answer. */
import { resourceKey, type ResourceKind } from '../../api';
import { StatusError } from '../../common';
import { useWorkbench } from '../../store';
import { useCreateObject } from './useCreateObject';

export function CreateFromYaml({ kinds }: { kinds: readonly ResourceKind[] }) {
  const draft = useWorkbench((s) => s.manifestDraft);
  const setDraft = useWorkbench((s) => s.setManifestDraft);
  const selectedNamespace = useWorkbench((s) => s.selectedNamespace);
  const selectNamespace = useWorkbench((s) => s.selectNamespace);
  const selectKind = useWorkbench((s) => s.selectKind);
  const create = useCreateObject(kinds, selectedNamespace ?? 'default');

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    create.mutate(draft, {
      onSuccess: ({ kind, namespace }) => {
        // Show the new object where it lives.
        selectKind(resourceKey(kind));
        if (namespace !== undefined) selectNamespace(namespace);
      },
    });
  };

  return (
    <form className="create-form" onSubmit={submit} data-testid="create-form">
      <h2>Create from YAML</h2>
      <p className="muted">
        Posted as JSON to the kind's collection, in <code>metadata.namespace</code> or else{' '}
        <code>{selectedNamespace ?? 'default'}</code>.
      </p>
      <textarea
        value={draft}
        onChange={(e) => {
          setDraft(e.target.value);
          if (!create.isIdle) create.reset();
        }}
        spellCheck={false}
        rows={14}
        aria-label="Manifest (YAML)"
        data-testid="manifest-editor"
      />
      <div className="actions">
        <button type="submit" disabled={create.isPending} data-testid="create-button">
          {create.isPending ? 'Creating…' : 'Create'}
        </button>
        {create.isSuccess && (
          <span className="success" role="status" data-testid="create-result">
            {create.data.summary}
          </span>
        )}
      </div>
      {create.isError && <StatusError error={create.error} testId="create-error" />}
    </form>
  );
}
