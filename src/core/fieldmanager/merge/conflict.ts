import { pathToString, type Path, type PathSet } from '../fieldpath';

/** A field another manager owns with a different value than the one applied. */
export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** Conflicts of one apply, grouped by manager (sorted) then path (sorted). */
export class Conflicts {
  readonly kind = 'Conflicts';
  constructor(readonly items: readonly Conflict[]) {}

  static fromManagers(sets: ReadonlyMap<string, PathSet>): Conflicts {
    const items: Conflict[] = [];
    for (const manager of [...sets.keys()].sort()) {
      for (const path of sets.get(manager)!.paths()) items.push({ manager, path });
    }
    return new Conflicts(items);
  }

  /** The structured-merge-diff wording, with managers printed by `printManager`. */
  message(printManager: (manager: string) => string = (m) => JSON.stringify(m)): string {
    if (this.items.length === 1) {
      return `conflict with ${printManager(this.items[0].manager)}: ${pathToString(this.items[0].path)}`;
    }
    const lines: string[] = [];
    for (const [manager, paths] of this.byManager()) {
      lines.push(`conflicts with ${printManager(manager)}:`);
      for (const p of paths) lines.push(`- ${pathToString(p)}`);
    }
    return lines.join('\n');
  }

  byManager(): Map<string, Path[]> {
    const m = new Map<string, Path[]>();
    for (const c of [...this.items].sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0))) {
      const list = m.get(c.manager) ?? [];
      list.push(c.path);
      m.set(c.manager, list);
    }
    return m;
  }
}
