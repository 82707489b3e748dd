/**
 * Field paths (k8s.io/apimachinery/pkg/util/validation/field.Path): how a
 * validation error names the field it is about, `spec.containers[0].name`
 * or `data[bad key!]`. Immutable: child, index and key return new paths.
 */
export class Path {
  private constructor(private readonly text: string) {}

  static root(name: string, ...more: string[]): Path {
    return more.reduce((p, m) => p.child(m), new Path(name));
  }

  /** `a.b`; several names at once as Go's Child(name, moreNames...). */
  child(name: string, ...more: string[]): Path {
    const first = new Path(this.text ? `${this.text}.${name}` : name);
    return more.reduce((p, m) => p.child(m), first);
  }

  /** `a[3]` */
  index(i: number): Path {
    return new Path(`${this.text}[${i}]`);
  }

  /** `a[key]`: Go writes map keys unquoted. */
  key(k: string): Path {
    return new Path(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

export const newPath = Path.root;
