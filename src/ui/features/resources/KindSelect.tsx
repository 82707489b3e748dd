/** Chooses the kind to list, from discovery. */
import { resourceKey, type ResourceKind } from '../../api';
import { useWorkbench } from '../../store';

export function KindSelect({ kinds, discovered }: { kinds: readonly ResourceKind[]; discovered: boolean }) {
  const selected = useWorkbench((s) => s.selectedKindKey);
  const select = useWorkbench((s) => s.selectKind);
  return (
    <label className="kind-select">
      Kind{' '}
      <select value={selected} onChange={(e) => select(e.target.value)} data-testid="kind-select" data-discovered={discovered}>
        {kinds.map((k) => (
          <option key={resourceKey(k)} value={resourceKey(k)}>
            {k.kind}
            {k.group ? ` (${k.group}/${k.version})` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
