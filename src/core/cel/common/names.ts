// Sets of declared names asked about every identifier of an expression:
// most identifiers are not in them, and a look at the name's length and
// first character says so without hashing the name (a fresh string from
// the scanner would be hashed for the lookup).

/** The first character's bit (case-insensitive letters share one). */
function initialBit(name: string): number {
  return 1 << (name.charCodeAt(0) & 31);
}

/** A Set of names whose has() first checks the length and first character of the name against those held. */
export class NameSet extends Set<string> {
  /** first-character bits of the names held, by length */
  private readonly initials: number[] = [];

  /** Empty: Set's constructor would add names before `initials` is made (of() fills one). */
  constructor() {
    super();
  }

  static of(names: Iterable<string>): NameSet {
    const s = new NameSet();
    for (const n of names) s.add(n);
    return s;
  }

  override add(name: string): this {
    this.initials[name.length] = (this.initials[name.length] ?? 0) | initialBit(name);
    return super.add(name);
  }

  override has(name: string): boolean {
    const bits = this.initials[name.length];
    return bits !== undefined && (bits & initialBit(name)) !== 0 && super.has(name);
  }
}
