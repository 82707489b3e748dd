/**
 * Field paths (k8s.io/apimachinery/pkg/util/validation/field.Path): how a
 * validation error names the field it is about, `spec.containers[0].name`
 * or `data[bad key!]`. Immutable: child, index and key return new paths.
 *
 * A path is a link to its parent plus one step, rendered to text only when
 * asked (an error names it): validating a valid object builds many paths and
 * prints none of them.
 */
export class Path {
  /** The rendered text, once asked for. */
  private text: string | undefined;

  private constructor(
    private readonly parent: Path | undefined,
    /** A field name, a list index or a map key. */
    private readonly step: string | number,
    /** The step is a map key (`[key]`) rather than a field name. */
    private readonly isKey: boolean,
  ) {}

  static root(name: string, ...more: string[]): Path {
    const root = new Path(undefined, name, false);
    return more.length ? root.child(more[0]!, ...more.slice(1)) : root;
  }

  /** `a.b`; several names at once as Go's Child(name, moreNames...). */
  child(name: string, ...more: string[]): Path {
    let p = new Path(this, name, false);
    for (let i = 0; i < more.length; i++) p = new Path(p, more[i]!, false);
    return p;
  }

  /** `a[3]` */
  index(i: number): Path {
    return new Path(this, i, false);
  }

  /** `a[key]`: Go writes map keys unquoted. */
  key(k: string): Path {
    return new Path(this, k, true);
  }

  toString(): string {
    if (this.text !== undefined) return this.text;
    const { parent, step } = this;
    let text: string;
    if (!parent) text = String(step);
    else {
      const base = parent.toString();
      if (typeof step === 'number' || this.isKey) text = `${base}[${step}]`;
      else text = base ? `${base}.${step}` : step;
    }
    return (this.text = text);
  }
}

export const newPath = Path.root;
