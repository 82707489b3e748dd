/**
 * The object's fields as a tree, each coloured by its owner(s). A field
 * with several owners is marked shared; hovering (or focusing) a field
 * shows every owner's manager, operation and time. Conflicting fields of
 * the last apply are highlighted with both values.
 */
import { stringify } from 'yaml';
import { describeOwner, fieldChild, itemChild, type ManagerEntry, type OwnerTrie } from './fieldOwners';
import { walkMatches, type FieldConflict, type WalkStep } from './conflicts';
import { valueAt } from './fieldPath';

export const MANAGER_COLOURS = ['#326ce5', '#d9480f', '#2b8a3e', '#862e9c', '#c2255c', '#0b7285', '#5c940d', '#e67700'];

export function managerColour(entry: ManagerEntry): string {
  return MANAGER_COLOURS[entry.index % MANAGER_COLOURS.length]!;
}

interface TreeProps {
  value: unknown;
  trie: OwnerTrie | undefined;
  steps: WalkStep[];
  conflicts: readonly FieldConflict[];
  mine: unknown;
}

export function FieldTree({ object, trie, conflicts, mine }: { object: Record<string, unknown>; trie: OwnerTrie; conflicts: readonly FieldConflict[]; mine: unknown }) {
  return (
    <ul className="field-tree" role="tree" aria-label="Fields by manager" data-testid="field-tree">
      <Children value={object} trie={trie} steps={[]} conflicts={conflicts} mine={mine} />
    </ul>
  );
}

function Children({ value, trie, steps, conflicts, mine }: TreeProps) {
  if (Array.isArray(value)) {
    return (
      <>
        {value.map((item, index) => (
          <FieldNode key={index} label={`[${index}]`} value={item} trie={itemChild(trie, item, index)} steps={[...steps, { type: 'item', item, index }]} conflicts={conflicts} mine={mine} />
        ))}
      </>
    );
  }
  if (typeof value === 'object' && value !== null) {
    return (
      <>
        {Object.entries(value)
          .filter(([name]) => !(steps.length === 1 && steps[0]!.type === 'field' && steps[0]!.name === 'metadata' && name === 'managedFields'))
          .map(([name, child]) => (
            <FieldNode key={name} label={name} value={child} trie={fieldChild(trie, name)} steps={[...steps, { type: 'field', name }]} conflicts={conflicts} mine={mine} />
          ))}
      </>
    );
  }
  return null;
}

function FieldNode({ label, value, trie, steps, conflicts, mine }: TreeProps & { label: string }) {
  const owners = trie?.owners ?? [];
  const conflict = conflicts.find((c) => walkMatches(steps, c.path));
  const leaf = typeof value !== 'object' || value === null;
  const path = steps.map((s) => (s.type === 'field' ? `.${s.name}` : `[${s.index}]`)).join('');
  const title = owners.length > 0 ? owners.map(describeOwner).join('\n') : 'no manager owns this field';
  const classes = ['field', owners.length > 1 ? 'shared' : '', conflict ? 'conflict' : ''].filter(Boolean).join(' ');
  return (
    <li role="treeitem" aria-expanded={leaf ? undefined : true} className={classes} data-testid="field" data-path={path} data-owners={owners.map((o) => o.manager).join(',')}>
      <span className="field-label" tabIndex={0} title={title} aria-label={`${label}: ${owners.length > 0 ? `owned by ${title.replaceAll('\n', '; ')}` : 'not owned'}`}>
        {owners.map((o) => (
          <span key={o.index} className="owner-dot" style={{ background: managerColour(o) }} aria-hidden="true" />
        ))}
        <span className="field-name" style={owners.length === 1 ? { color: managerColour(owners[0]!) } : undefined}>
          {label}
        </span>
        {leaf && <span className="field-value">: {JSON.stringify(value)}</span>}
        {owners.length > 1 && <span className="shared-mark"> shared</span>}
      </span>
      {conflict && (
        <span className="conflict-values" data-testid="conflict-values">
          {' '}
          mine: <code>{stringifyShort(valueAt(mine, conflict.path))}</code> live: <code>{stringifyShort(value)}</code> ({conflict.message})
        </span>
      )}
      {!leaf && (
        <ul role="group">
          <Children value={value} trie={trie} steps={steps} conflicts={conflicts} mine={mine} />
        </ul>
      )}
    </li>
  );
}

function stringifyShort(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  return stringify(value, { indent: 1 }).trim().replaceAll('\n', ', ');
}
